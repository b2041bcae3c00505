//! The structurizer on hand-built control-flow graphs: dominators, back edges and reducibility worked out by
//! hand for each graph, and the structured form walked against a direct interpretation of the graph (the
//! successor of each visit chosen by a seeded hash of (block, visit number), the same choice on both sides):
//! the walk must visit exactly the blocks the graph visits, in the same order.

use rdna2spv_ir::cfg::{Cfg, Item, LoopKind, Next, Structure};

/// Successor choice of the `k`-th visit of block `b` (splitmix64 of both, with a per-run seed).
fn choose(seed: u64, b: usize, k: usize, n: usize) -> usize {
    let mut z = seed ^ (b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (k as u64) << 32;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z % n as u64) as usize
}

/// Direct interpretation: from the entry, follow the chosen successors until a block without successors
/// (the end) or `max` visits.
fn direct(g: &[Vec<usize>], seed: u64, max: usize) -> Vec<usize> {
    let mut visits = vec![0usize; g.len()];
    let mut out = Vec::new();
    let mut b = 0;
    loop {
        out.push(b);
        if out.len() >= max || g[b].is_empty() {
            return out;
        }
        let k = visits[b];
        visits[b] += 1;
        b = g[b][choose(seed, b, k, g[b].len())];
    }
}

/// The structured walk with the same choices; `barriers` are blocks followed by a workgroup barrier.
fn walked(
    g: &[Vec<usize>],
    s: &Structure,
    seed: u64,
    max: usize,
    barriers: &[usize],
) -> Vec<usize> {
    let mut visits = vec![0usize; g.len()];
    let mut n = 0;
    let r = s.walk(0, max + 1, |b| {
        n += 1;
        if n >= max || g[b].is_empty() {
            return Next::End;
        }
        let k = visits[b];
        visits[b] += 1;
        let t = g[b][choose(seed, b, k, g[b].len())];
        if barriers.contains(&b) {
            Next::Barrier(t)
        } else {
            Next::Block(t)
        }
    });
    r.expect("the walk ends")
}

/// Walks 200 seeds (and, for every block, a version with a barrier after it) and compares with the graph.
fn agree(g: &[Vec<usize>]) -> Structure {
    let cfg = Cfg::from_succs(0, g.to_vec());
    let s = Structure::new(&cfg);
    // Every reachable block is numbered once; loops are intervals.
    let mut numbers: Vec<u32> = cfg.rpo.iter().map(|&b| s.number[b]).collect();
    numbers.sort();
    assert_eq!(numbers, (0..cfg.rpo.len() as u32).collect::<Vec<_>>());
    for seed in 0..200u64 {
        let want = direct(g, seed, 400);
        assert_eq!(walked(g, &s, seed, 400, &[]), want, "seed {seed}");
        let bar = [seed as usize % g.len()];
        assert_eq!(
            walked(g, &s, seed, 400, &bar),
            want,
            "seed {seed}, barrier after {bar:?}"
        );
    }
    s
}

fn loops(items: &[Item]) -> Vec<(LoopKind, Vec<usize>)> {
    fn blocks(items: &[Item], out: &mut Vec<usize>) {
        for it in items {
            match it {
                Item::Block(b) => out.push(*b),
                Item::Loop(l) => blocks(&l.items, out),
            }
        }
    }
    let mut out = Vec::new();
    for it in items {
        if let Item::Loop(l) = it {
            let mut b = Vec::new();
            blocks(&l.items, &mut b);
            b.sort();
            out.push((l.kind.clone(), b));
            out.extend(loops(&l.items));
        }
    }
    out
}

fn top_blocks(s: &Structure) -> Vec<usize> {
    s.items
        .iter()
        .filter_map(|i| match i {
            Item::Block(b) => Some(*b),
            Item::Loop(_) => None,
        })
        .collect()
}

#[test]
fn diamond() {
    // 0 -> {1, 2} -> 3
    let g = vec![vec![1, 2], vec![3], vec![3], vec![]];
    let cfg = Cfg::from_succs(0, g.clone());
    assert_eq!(cfg.idom, vec![Some(0), Some(0), Some(0), Some(0)]);
    assert!(cfg.is_reducible());
    assert!(cfg.back_edges().is_empty());
    let s = agree(&g);
    assert!(loops(&s.items).is_empty());
    assert!(s.fully_structured());
    // 0 first and 3 last; 1 and 2 between.
    let order = top_blocks(&s);
    assert_eq!((order[0], order[3]), (0, 3));
}

#[test]
fn nested_diamonds_and_triangle() {
    // 0 -> {1, 5}; 1 -> {2, 3}; 2,3 -> 4; 4 -> 5; 5 -> {6, 7}; 6 -> 7 (a triangle)
    let g = vec![
        vec![1, 5],
        vec![2, 3],
        vec![4],
        vec![4],
        vec![5],
        vec![6, 7],
        vec![7],
        vec![],
    ];
    let cfg = Cfg::from_succs(0, g.clone());
    assert_eq!(cfg.idom[4], Some(1));
    assert_eq!(cfg.idom[5], Some(0));
    assert_eq!(cfg.idom[7], Some(5));
    let s = agree(&g);
    assert!(loops(&s.items).is_empty());
}

#[test]
fn nested_loops_with_break_and_continue() {
    // 0 -> 1 (outer header); 1 -> 2 (inner header); 2 -> {3, 5}; 3 -> {2 (inner continue), 4};
    // 4 -> {1 (outer continue), 6 (break out of both)}; 5 -> {1 (continue outer from inside inner), 6 (break)}
    // 6 end.
    let g = vec![
        vec![1],
        vec![2],
        vec![3, 5],
        vec![2, 4],
        vec![1, 6],
        vec![1, 6],
        vec![],
    ];
    let cfg = Cfg::from_succs(0, g.clone());
    assert!(cfg.is_reducible());
    let mut be = cfg.back_edges();
    be.sort();
    assert_eq!(be, vec![(3, 2), (4, 1), (5, 1)]);
    assert_eq!(cfg.natural_loop(1), vec![1, 2, 3, 4, 5]);
    assert_eq!(cfg.natural_loop(2), vec![2, 3]);
    let s = agree(&g);
    let l = loops(&s.items);
    assert_eq!(
        l,
        vec![
            (LoopKind::Natural { header: 1 }, vec![1, 2, 3, 4, 5]),
            (LoopKind::Natural { header: 2 }, vec![2, 3]),
        ]
    );
    assert_eq!(s.loops, 2);
    assert!(s.fully_structured());
}

#[test]
fn loop_with_multiple_exits() {
    // 0 -> 1 (header); 1 -> {2, 5}; 2 -> {3, 6}; 3 -> {1, 4}; 4 -> 7; 5 -> 7; 6 -> 7; 7 end.
    // Exits 1->5, 2->6, 3->4 to three different blocks that join later.
    let g = vec![
        vec![1],
        vec![2, 5],
        vec![3, 6],
        vec![1, 4],
        vec![7],
        vec![7],
        vec![7],
        vec![],
    ];
    let s = agree(&g);
    assert_eq!(
        loops(&s.items),
        vec![(LoopKind::Natural { header: 1 }, vec![1, 2, 3])]
    );
}

#[test]
fn bottom_tested_self_loop() {
    // The machine-code shape: 0 -> 1; 1 -> {1, 2}; 2 end.
    let g = vec![vec![1], vec![1, 2], vec![]];
    let cfg = Cfg::from_succs(0, g.clone());
    assert_eq!(cfg.back_edges(), vec![(1, 1)]);
    let s = agree(&g);
    assert_eq!(
        loops(&s.items),
        vec![(LoopKind::Natural { header: 1 }, vec![1])]
    );
}

#[test]
fn loop_at_the_entry() {
    // The entry block is a loop header: 0 -> {0, 1}; 1 -> {0, 2}; 2 end.
    let g = vec![vec![0, 1], vec![0, 2], vec![]];
    let s = agree(&g);
    assert_eq!(
        loops(&s.items),
        vec![(LoopKind::Natural { header: 0 }, vec![0, 1])]
    );
}

#[test]
fn loop_entered_from_two_places_is_irreducible() {
    // 0 -> {1, 2}; 1 -> {2, 3}; 2 -> {1, 3}; 3 end. The cycle {1, 2} has two entries.
    let g = vec![vec![1, 2], vec![2, 3], vec![1, 3], vec![]];
    let cfg = Cfg::from_succs(0, g.clone());
    assert!(!cfg.is_reducible());
    assert!(
        cfg.back_edges().is_empty(),
        "neither of 1, 2 dominates the other"
    );
    let s = agree(&g);
    assert_eq!(s.dispatch_regions.len(), 1);
    assert_eq!(s.dispatch_regions[0].blocks, vec![1, 2]);
    assert_eq!(s.dispatch_regions[0].entries.len(), 2);
    assert!(!s.fully_structured());
}

#[test]
fn irreducible_region_inside_a_natural_loop() {
    // Outer loop 1..5 with header 1; inside it, {3, 4} is entered from 2 at 3 and at 4.
    // 0 -> 1; 1 -> 2; 2 -> {3, 4}; 3 -> {4, 5}; 4 -> {3, 5}; 5 -> {1, 6}; 6 end.
    let g = vec![
        vec![1],
        vec![2],
        vec![3, 4],
        vec![4, 5],
        vec![3, 5],
        vec![1, 6],
        vec![],
    ];
    let s = agree(&g);
    assert_eq!(s.loops, 1);
    assert_eq!(s.dispatch_regions.len(), 1);
    assert_eq!(s.dispatch_regions[0].blocks, vec![3, 4]);
}

#[test]
fn switch_like_chain_of_cbranch() {
    // s_cbranch chain: 0 -> {10, 1}; 1 -> {11, 2}; 2 -> {12, 3}; 3 -> {13, 14}; cases 10..14 -> 15.
    let mut g = vec![Vec::new(); 16];
    g[0] = vec![10, 1];
    g[1] = vec![11, 2];
    g[2] = vec![12, 3];
    g[3] = vec![13, 14];
    for succ in g.iter_mut().take(15).skip(10) {
        *succ = vec![15];
    }
    // Blocks 4..10 are unreachable (never numbered).
    let cfg = Cfg::from_succs(0, g.clone());
    assert_eq!(cfg.rpo.len(), 10);
    assert_eq!(cfg.idom[15], Some(0));
    let s = Structure::new(&cfg);
    for b in 4..10 {
        assert_eq!(s.number[b], u32::MAX);
    }
    // The walk from the chain agrees with the graph (unreachable blocks are never chosen).
    for seed in 0..200 {
        assert_eq!(walked(&g, &s, seed, 100, &[]), direct(&g, seed, 100));
    }
    assert!(loops(&s.items).is_empty());
}

#[test]
fn random_reducible_and_irreducible_graphs() {
    // 500 random graphs of 2..24 blocks with 1 or 2 successors (some ending): every walk agrees.
    let mut irreducible = 0;
    for gseed in 0..500u64 {
        let n = 2 + (choose(gseed, 1000, 0, 23));
        let mut g = vec![Vec::new(); n];
        for (b, succ) in g.iter_mut().enumerate() {
            let k = choose(gseed, b, 1, 8);
            *succ = match k {
                0 => vec![],
                1..=3 => vec![choose(gseed, b, 2, n)],
                _ => vec![choose(gseed, b, 2, n), choose(gseed, b, 3, n)],
            };
        }
        g[n - 1] = vec![];
        let cfg = Cfg::from_succs(0, g.clone());
        let s = Structure::new(&cfg);
        if !cfg.is_reducible() {
            irreducible += 1;
            assert!(!s.fully_structured(), "graph {gseed}: {g:?}");
        } else {
            assert!(s.fully_structured(), "graph {gseed}: {g:?}");
        }
        for seed in 0..20 {
            let want = direct(&g, seed, 300);
            assert_eq!(
                walked(&g, &s, seed, 300, &[]),
                want,
                "graph {gseed} {g:?} seed {seed}"
            );
        }
    }
    assert!(
        irreducible > 20,
        "the sample includes irreducible graphs ({irreducible})"
    );
}

mod barriers {
    use rdna2spv_ir::cfg::divergent_barriers;
    use rdna2spv_ir::*;

    /// `s5 = <trip count>; loop { s_barrier; s5 -= 1; s_cmp_lg_u32 s5, 0; s_cbranch_scc1 loop }; s_endpgm`,
    /// the trip count read from lane data (v_readfirstlane of v0, different per wave) or from s4 (a kernel
    /// argument, the same for every wave).
    fn program(from_lanes: bool) -> Program {
        let mut p = Program {
            name: "barrier_loop".into(),
            wave_size: 32,
            ..Default::default()
        };
        let n = |p: &Program| p.nodes.len() as u32;
        let h = |i: u32| Handle::<Node>::from_index(i as usize);
        // block 0
        let s0 = n(&p);
        if from_lanes {
            p.nodes.push(Node::ReadVgpr {
                reg: 0,
                ty: Ty::B32,
            });
            p.nodes.push(Node::ReadFirstLane { a: h(s0) });
        } else {
            p.nodes.push(Node::ReadSgpr {
                reg: 4,
                ty: Ty::B32,
            });
            p.nodes.push(Node::Unary {
                op: UnOp::ZExt,
                ty: Ty::B32,
                a: h(s0),
            });
        }
        p.nodes.push(Node::WriteSgpr {
            reg: 5,
            value: h(s0 + 1),
        });
        let i0 = Inst {
            pc: 0,
            text: "s_mov_b32 s5, ...".into(),
            nodes: s0..n(&p),
            encoding: None,
        };
        // block 1: the barrier
        let s1 = n(&p);
        p.nodes.push(Node::Barrier);
        let i1 = Inst {
            pc: 4,
            text: "s_barrier".into(),
            nodes: s1..n(&p),
            encoding: None,
        };
        // block 2: count down, branch back
        let s2 = n(&p);
        p.nodes.push(Node::ReadSgpr {
            reg: 5,
            ty: Ty::B32,
        });
        p.nodes.push(Node::Const {
            ty: Ty::B32,
            bits: 1,
        });
        p.nodes.push(Node::Int {
            op: IntOp::Sub,
            ty: Ty::B32,
            a: h(s2),
            b: h(s2 + 1),
        });
        p.nodes.push(Node::WriteSgpr {
            reg: 5,
            value: h(s2 + 2),
        });
        p.nodes.push(Node::Const {
            ty: Ty::B32,
            bits: 0,
        });
        p.nodes.push(Node::IntCmp {
            op: IntCmp::Ne,
            ty: Ty::B32,
            a: h(s2 + 2),
            b: h(s2 + 4),
        });
        p.nodes.push(Node::WriteScc { value: h(s2 + 5) });
        let i2 = Inst {
            pc: 8,
            text: "s_sub_u32 s5, s5, 1 / s_cmp_lg_u32 s5, 0".into(),
            nodes: s2..n(&p),
            encoding: None,
        };
        let s3 = n(&p);
        p.nodes.push(Node::ReadScc);
        let i3 = Inst {
            pc: 12,
            text: "s_cbranch_scc1".into(),
            nodes: s3..n(&p),
            encoding: None,
        };
        let b = |i: usize| Handle::<Block>::from_index(i);
        p.blocks.push(Block {
            start_pc: 0,
            insts: vec![i0],
            terminator: Terminator::Jump(b(1)),
        });
        p.blocks.push(Block {
            start_pc: 4,
            insts: vec![i1],
            terminator: Terminator::Jump(b(2)),
        });
        p.blocks.push(Block {
            start_pc: 8,
            insts: vec![i2, i3],
            terminator: Terminator::Branch {
                cond: h(s3),
                taken: b(1),
                not_taken: b(3),
            },
        });
        p.blocks.push(Block {
            start_pc: 16,
            insts: vec![],
            terminator: Terminator::End,
        });
        verify(&p).expect("verifies");
        p
    }

    #[test]
    fn barrier_in_a_loop_with_a_wave_varying_trip_count_is_reported() {
        let d = divergent_barriers(&program(true));
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].block, d[0].pc, d[0].branch, d[0].branch_pc),
            (1, 4, 2, 12)
        );
        assert_eq!(d[0].region, vec![1, 2]);
    }

    #[test]
    fn barrier_in_a_loop_with_a_uniform_trip_count_is_not() {
        assert!(divergent_barriers(&program(false)).is_empty());
    }
}
