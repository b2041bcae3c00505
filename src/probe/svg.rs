//! The error-distribution plot of `rdna2spv probe double-word --svg`: for each operation and level, in its
//! first regime (where the seed's relative bound applies; the seed harness's working range for the
//! multiplications, divisions and the root, D079), the fraction of operands whose relative error
//! exceeds t, against t in u² (log scale on the fraction). Plain SVG, no dependencies.

use super::dw::{Report, HIST_MAX, HIST_STEP};

const COLORS: [&str; 12] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#000000", "#aa3377",
];

pub fn plot(r: &Report) -> String {
    let (w, h) = (900.0, 520.0);
    let (l, t, pw, ph) = (70.0, 30.0, 560.0, 440.0);
    let n = r.operands_per_cell.max(1) as f64;
    let ymin = -(n.log10().ceil());
    let x_of = |u: f64| l + pw * (u / HIST_MAX);
    let y_of = |lf: f64| t + ph * (lf / ymin);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"18\" text-anchor=\"middle\">fp32mp2 on gfx1030, translated: fraction of {} operands with relative error &gt; t</text>\n",
        l + pw / 2.0,
        r.operands_per_cell
    );
    for k in 0..=8 {
        let u = HIST_MAX * k as f64 / 8.0;
        let x = x_of(u);
        s += &format!(
            "<line x1=\"{x}\" y1=\"{t}\" x2=\"{x}\" y2=\"{}\" stroke=\"#ddd\"/><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{u}</text>\n",
            t + ph,
            t + ph + 16.0
        );
    }
    for k in 0..=(-ymin as i32) {
        let y = y_of(-(k as f64));
        s += &format!(
            "<line x1=\"{l}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">1e-{k}</text>\n",
            l + pw,
            l - 6.0,
            y + 4.0
        );
    }
    s += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">t (units of u² = 2^-48)</text>\n",
        l + pw / 2.0,
        h - 10.0
    );
    let mut seen = Vec::new();
    let mut idx = 0;
    for c in &r.cells {
        let key = (c.op.clone(), c.level.clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let color = COLORS[idx % COLORS.len()];
        let total: u64 = c.histogram.iter().sum();
        let mut above = total;
        let mut pts = Vec::new();
        for (b, &cnt) in c.histogram.iter().enumerate().take(c.histogram.len() - 1) {
            above -= cnt;
            let u = (b + 1) as f64 * HIST_STEP;
            if above == 0 {
                pts.push(format!("{:.1},{:.1}", x_of(u), y_of(ymin)));
                break;
            }
            let lf = (above as f64 / total.max(1) as f64).log10();
            pts.push(format!("{:.1},{:.1}", x_of(u), y_of(lf)));
        }
        s += &format!(
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" points=\"{}\"/>\n",
            pts.join(" ")
        );
        let ly = t + 10.0 + 18.0 * idx as f64;
        s += &format!(
            "<line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{color}\" stroke-width=\"2\"/><text x=\"{}\" y=\"{}\">{} {} ({}), max {:.2}</text>\n",
            l + pw + 15.0,
            l + pw + 35.0,
            l + pw + 40.0,
            ly + 4.0,
            xml(&c.op),
            c.level,
            c.regime.name(),
            c.max_rel
        );
        idx += 1;
    }
    s += "</svg>\n";
    s
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
