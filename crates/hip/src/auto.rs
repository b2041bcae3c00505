//! The `auto` backend's choice per launch (decision D252): the device where the launch's module has its
//! pipeline compiled, else the host evaluator while a child process compiles it.
//!
//! lavapipe compiles a module at its first dispatch, one core for as long as the module takes (rocPRIM's
//! segmented sort: about 90 s on this machine), and a GPU driver compiles at pipeline creation; either
//! way a program's first launch of a large kernel waits for it. The host evaluator computes the same bits
//! (every launch of `--backend both` compares them), so a launch need not wait: the first launch of a
//! module starts `rdna2spv warm-pipeline` (the executable in `RDNA2SPV_HIP_WARMER`) on the module's
//! words and runs on the host evaluator; the child compiles the pipeline without running it
//! ([`rdna2spv_vulkan::Context::warm_up`]), which fills the driver's on-disk shader cache; once it has
//! ended with status 0, the module's launches go to the device, whose compile is then a cache hit.
//!
//! * One child at a time (a compile takes a core; the host evaluator another); further modules queue.
//! * A child that fails (the module-size limit, a driver error, a timeout, a crash, memory) leaves its
//!   module on the host evaluator for the rest of the run; the reason is in the launch log.
//! * Without a warmer, or with Mesa's shader cache turned off (`MESA_SHADER_CACHE_DISABLE`, where the
//!   child's compile could not reach this process), launches go to the device and wait, as `vulkan`.
//! * A module not lowered yet is lowered on a thread of its own ([`Auto::lower_in_background`]) while its
//!   launches run on the host; then its child starts.
//! * `RDNA2SPV_HIP_AUTO_WAIT_MS` lets a launch wait that long for its module's child first (and lower its
//!   module itself).
//! * A child gets `PR_SET_PDEATHSIG` and is started by a thread that lives as long as the program: nothing
//!   outlives the program, and a launching thread that ends takes no compile with it.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::Failure;
use crate::launch::LowerTask;
use crate::module::ShapeKey;

/// A module's identity: a hash of its words.
pub fn module_key(words: &[u32]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    words.hash(&mut h);
    h.finish()
}

/// Where one launch runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// On the device; `waited`: how long the launch waited for its module's child.
    Device { waited: Option<Duration> },
    /// On the host evaluator, and why.
    Host(String),
}

/// A module lowered on a thread of its own ([`Auto::lower_in_background`]).
pub struct Lowered {
    pub module: usize,
    pub name: String,
    pub key: ShapeKey,
    pub disk_key: Option<String>,
    pub words: Arc<Vec<u32>>,
}

struct Lowering {
    module: usize,
    name: String,
    key: ShapeKey,
    disk_key: Option<String>,
    started: Instant,
    thread: std::thread::JoinHandle<Result<Vec<u32>, String>>,
}

struct Job {
    key: u64,
    child: Child,
    file: PathBuf,
    started: Instant,
}

/// The `auto` backend's state.
pub struct Auto {
    warmer: Option<PathBuf>,
    device: Option<String>,
    wait: Duration,
    /// Modules compiled in this process's driver or its shader cache: dispatched here, or warmed.
    warm: HashSet<u64>,
    /// Modules whose child failed, with its message.
    refused: HashMap<u64, String>,
    job: Option<Job>,
    queue: VecDeque<(u64, Arc<Vec<u32>>)>,
    /// Modules being lowered, and those whose lowering failed (with its message).
    lowering: Vec<Lowering>,
    /// Modules lowered (their compile queued) and not yet taken by a launch ([`Auto::lowered`]).
    finished: Vec<Lowered>,
    lower_failed: HashMap<(usize, String, ShapeKey), String>,
    dir: PathBuf,
}

/// Whether Mesa's on-disk shader cache is off (then a child's compile cannot reach this process).
fn mesa_cache_off() -> bool {
    std::env::var("MESA_SHADER_CACHE_DISABLE")
        .map(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        })
        .unwrap_or(false)
}

impl Auto {
    pub fn new(warmer: Option<PathBuf>, device: Option<String>, wait: Duration) -> Self {
        Auto {
            warmer: warmer.filter(|_| !mesa_cache_off()),
            device,
            wait,
            warm: HashSet::new(),
            refused: HashMap::new(),
            job: None,
            queue: VecDeque::new(),
            lowering: Vec::new(),
            finished: Vec::new(),
            lower_failed: HashMap::new(),
            dir: std::env::temp_dir(),
        }
    }

    /// Whether a launch whose module is not lowered yet runs on the host while a thread lowers it: where
    /// modules compile in the background (a warmer, Mesa's shader cache on) and launches do not wait for
    /// their compile (`RDNA2SPV_HIP_AUTO_WAIT_MS`: then the launch lowers its module itself).
    pub fn defers(&self) -> bool {
        self.warmer.is_some() && self.wait.is_zero()
    }

    /// Why the launch of kernel `name` of `module` with module `key` runs on the host: its module is
    /// being lowered, or its lowering failed; None when neither.
    pub fn lowering(&self, module: usize, name: &str, key: &ShapeKey) -> Option<String> {
        if let Some(l) = self
            .lowering
            .iter()
            .find(|l| l.module == module && l.name == name && &l.key == key)
        {
            return Some(format!(
                "its module is translated in the background ({:.1} s so far)",
                l.started.elapsed().as_secs_f64()
            ));
        }
        self.lower_failed
            .get(&(module, name.to_string(), *key))
            .map(|e| format!("translating its module failed: {e}"))
    }

    /// Lowers `task` on a thread of its own; the reason a launch gives for running on the host meanwhile.
    pub fn lower_in_background(
        &mut self,
        module: usize,
        name: &str,
        key: ShapeKey,
        task: Box<LowerTask>,
    ) -> String {
        let disk_key = task.disk_key.clone();
        let thread = std::thread::Builder::new()
            .name("rdna2spv-lower".into())
            .spawn(move || {
                task.lower().map_err(|e| match e {
                    Failure::Stop(m) | Failure::Mismatch(m) => m,
                    Failure::Code(c) => format!("hipError {c}"),
                })
            });
        match thread {
            Ok(thread) => {
                self.lowering.push(Lowering {
                    module,
                    name: name.to_string(),
                    key,
                    disk_key,
                    started: Instant::now(),
                    thread,
                });
                "its module is translated in the background (started by this launch)".to_string()
            }
            Err(e) => {
                let why = format!("starting a thread: {e}");
                self.lower_failed
                    .insert((module, name.to_string(), key), why.clone());
                format!("translating its module failed: {why}")
            }
        }
    }

    /// Joins the lowering threads that have ended: a module lowered well is kept for a launch to take
    /// ([`Auto::lowered`], [`Auto::take_lowered`]) and queued for its child's compile at once; a failure is
    /// kept for [`Auto::lowering`].
    pub fn collect(&mut self) {
        let mut i = 0;
        while i < self.lowering.len() {
            if !self.lowering[i].thread.is_finished() {
                i += 1;
                continue;
            }
            let l = self.lowering.swap_remove(i);
            match l.thread.join() {
                Ok(Ok(words)) => {
                    let words = Arc::new(words);
                    self.compile_in_background(&words);
                    self.finished.push(Lowered {
                        module: l.module,
                        name: l.name,
                        key: l.key,
                        disk_key: l.disk_key,
                        words,
                    });
                }
                Ok(Err(e)) => {
                    self.lower_failed.insert((l.module, l.name, l.key), e);
                }
                Err(_) => {
                    self.lower_failed
                        .insert((l.module, l.name, l.key), "the lowering panicked".into());
                }
            }
        }
    }

    /// The modules whose lowering has ended well and that no launch has taken yet.
    pub fn lowered(&mut self) -> Vec<Lowered> {
        self.collect();
        std::mem::take(&mut self.finished)
    }

    /// [`Auto::lowered`] for the kernels of code object `module` alone.
    pub fn take_lowered(&mut self, module: usize) -> Vec<Lowered> {
        self.collect();
        let (mine, rest) = std::mem::take(&mut self.finished)
            .into_iter()
            .partition(|l| l.module == module);
        self.finished = rest;
        mine
    }

    /// The key ([`module_key`]) of the module of kernel `name` of `module` with shape `key` when its
    /// lowering has ended well and no launch has taken it yet.
    pub fn lowered_key(&self, module: usize, name: &str, key: &ShapeKey) -> Option<u64> {
        self.finished
            .iter()
            .find(|l| l.module == module && l.name == name && &l.key == key)
            .map(|l| module_key(&l.words))
    }

    /// Whether module `key`'s pipeline has compiled (its child ended with status 0, or it ran on the device).
    pub fn compiled(&mut self, key: u64) -> bool {
        self.poll();
        self.warm.contains(&key)
    }

    /// Queues module `words` for a child's compile, unless it is compiled, queued, compiling
    /// or refused already.
    pub fn compile_in_background(&mut self, words: &Arc<Vec<u32>>) {
        let key = module_key(words);
        let busy = self.warm.contains(&key)
            || self.refused.contains_key(&key)
            || self.job.as_ref().is_some_and(|j| j.key == key)
            || self.queue.iter().any(|(k, _)| *k == key);
        if !busy && self.warmer.is_some() {
            self.queue.push_back((key, words.clone()));
        }
        self.poll();
    }

    /// Records that module `key` ran on the device (its pipeline is compiled in this process).
    pub fn dispatched(&mut self, key: u64) {
        self.warm.insert(key);
    }

    /// Where a launch whose module is `words` runs.
    pub fn choose(&mut self, words: &Arc<Vec<u32>>) -> Choice {
        let key = module_key(words);
        self.poll();
        if self.warm.contains(&key) || self.warmer.is_none() {
            return Choice::Device { waited: None };
        }
        if let Some(why) = self.refused.get(&key) {
            return Choice::Host(format!("its pipeline did not compile: {why}"));
        }
        self.compile_in_background(words);
        if !self.wait.is_zero() && self.job.as_ref().is_some_and(|j| j.key == key) {
            let t0 = Instant::now();
            while t0.elapsed() < self.wait {
                std::thread::sleep(Duration::from_millis(5).min(self.wait));
                self.poll();
                if self.warm.contains(&key) {
                    return Choice::Device {
                        waited: Some(t0.elapsed()),
                    };
                }
                if let Some(why) = self.refused.get(&key) {
                    return Choice::Host(format!("its pipeline did not compile: {why}"));
                }
                if self.job.as_ref().is_none_or(|j| j.key != key) {
                    break;
                }
            }
        }
        match &self.job {
            Some(j) if j.key == key => Choice::Host(format!(
                "its pipeline compiles in the background ({:.1} s so far)",
                j.started.elapsed().as_secs_f64()
            )),
            _ => Choice::Host("its pipeline is queued to compile in the background".to_string()),
        }
    }

    /// Reaps the child if it has ended, and starts the next queued one.
    fn poll(&mut self) {
        if let Some(j) = self.job.as_mut() {
            match j.child.try_wait() {
                Ok(None) => return,
                Ok(Some(status)) => {
                    let j = self.job.take().expect("a job");
                    let _ = std::fs::remove_file(&j.file);
                    self.ended(j, status);
                }
                Err(e) => {
                    let j = self.job.take().expect("a job");
                    let _ = std::fs::remove_file(&j.file);
                    self.refused
                        .insert(j.key, format!("waiting for the compile: {e}"));
                }
            }
        }
        while self.job.is_none() {
            let Some((key, words)) = self.queue.pop_front() else {
                return;
            };
            match self.start(key, &words) {
                Ok(j) => self.job = Some(j),
                Err(e) => {
                    self.refused.insert(key, e);
                }
            }
        }
    }

    fn ended(&mut self, mut j: Job, status: std::process::ExitStatus) {
        use std::io::Read as _;
        use std::os::unix::process::ExitStatusExt as _;
        if status.success() {
            self.warm.insert(j.key);
            return;
        }
        let mut err = String::new();
        if let Some(mut e) = j.child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        let err = err
            .lines()
            .map(|l| l.trim_start_matches("rdna2spv: error: "))
            .collect::<Vec<_>>()
            .join("; ");
        let why = match (status.code(), status.signal()) {
            (Some(c), _) => format!("exit status {c}: {err}"),
            (None, Some(s)) => format!("the compiling process ended by signal {s}{}", {
                if err.is_empty() {
                    String::new()
                } else {
                    format!(": {err}")
                }
            }),
            _ => err,
        };
        self.refused.insert(j.key, why);
    }

    fn start(&mut self, key: u64, words: &[u32]) -> Result<Job, String> {
        let warmer = self.warmer.as_ref().expect("auto with a warmer");
        let file = self.dir.join(format!(
            "rdna2spv-warm-{}-{key:016x}.spv",
            std::process::id()
        ));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&file, bytes).map_err(|e| format!("writing {}: {e}", file.display()))?;
        let mut cmd = Command::new(warmer);
        cmd.arg("warm-pipeline");
        if let Some(d) = &self.device {
            cmd.arg("--device").arg(d);
        }
        cmd.arg("--consume")
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        use std::os::unix::process::CommandExt as _;
        // SAFETY: between fork and exec only the async-signal-safe prctl and getppid run.
        unsafe {
            let parent = libc::getpid();
            cmd.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                // The parent may have ended before the prctl: then end too.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
        let child = spawn(cmd).map_err(|e| {
            let _ = std::fs::remove_file(&file);
            format!("starting {} warm-pipeline: {e}", warmer.display())
        })?;
        Ok(Job {
            key,
            child,
            file,
            started: Instant::now(),
        })
    }
}

type Request = (Command, std::sync::mpsc::Sender<std::io::Result<Child>>);

/// Starts `cmd` from a thread that lives as long as the process: `PR_SET_PDEATHSIG` fires when the thread
/// that forked the child ends, and the program's launching threads may end before the program does.
fn spawn(cmd: Command) -> std::io::Result<Child> {
    static SPAWNER: std::sync::OnceLock<std::sync::Mutex<std::sync::mpsc::Sender<Request>>> =
        std::sync::OnceLock::new();
    let tx = SPAWNER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Request>();
        std::thread::Builder::new()
            .name("rdna2spv-warm".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            })
            .expect("starting the thread that starts compiles");
        std::sync::Mutex::new(tx)
    });
    let (reply, answer) = std::sync::mpsc::channel();
    tx.lock()
        .unwrap_or_else(|p| p.into_inner())
        .send((cmd, reply))
        .map_err(|_| std::io::Error::other("the thread that starts compiles has ended"))?;
    answer
        .recv()
        .map_err(|_| std::io::Error::other("the thread that starts compiles has ended"))?
}

impl Drop for Auto {
    fn drop(&mut self) {
        if let Some(mut j) = self.job.take() {
            let _ = j.child.kill();
            let _ = j.child.wait();
            let _ = std::fs::remove_file(&j.file);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Auto, Choice};
    use std::sync::Arc;
    use std::time::Duration;

    fn script(name: &str, body: &str) -> std::path::PathBuf {
        use std::os::unix::fs::PermissionsExt as _;
        let p = std::env::temp_dir().join(format!("rdna2spv-auto-{name}-{}", std::process::id()));
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    fn waiting_for(a: &mut Auto, words: &Arc<Vec<u32>>, want: impl Fn(&Choice) -> bool) -> Choice {
        for _ in 0..2000 {
            let c = a.choose(words);
            if want(&c) {
                return c;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("no such choice");
    }

    /// A module goes to the device once its child ended with status 0; a second module waits in the
    /// queue while the first compiles; a failed child keeps its module on the host; the child removed
    /// the module's file (`--consume`) or the runtime did.
    #[test]
    fn modules_go_to_the_device_after_their_child_ends_well() {
        std::env::remove_var("MESA_SHADER_CACHE_DISABLE");
        // The stand-in compiles for 0.3 s unless the module's file holds 4 bytes, then it fails.
        let ok = script(
            "ok",
            "f=\"$3\"; [ \"$(wc -c < \"$f\")\" -eq 4 ] && { rm -f \"$f\"; echo 'rdna2spv: error: too small' >&2; exit 2; }; rm -f \"$f\"; sleep 0.3",
        );
        let mut a = Auto::new(Some(ok.clone()), None, Duration::ZERO);
        let m1 = Arc::new(vec![0x0723_0203u32, 1, 2]);
        let m2 = Arc::new(vec![0x0723_0203u32, 5, 6]);
        let bad = Arc::new(vec![7u32]);
        match a.choose(&m1) {
            Choice::Host(why) => assert!(why.contains("compiles in the background"), "{why}"),
            c => panic!("{c:?}"),
        }
        match a.choose(&m2) {
            Choice::Host(why) => assert!(why.contains("queued"), "{why}"),
            c => panic!("{c:?}"),
        }
        waiting_for(&mut a, &m1, |c| {
            matches!(c, Choice::Device { waited: None })
        });
        waiting_for(&mut a, &m2, |c| {
            matches!(c, Choice::Device { waited: None })
        });
        let c = waiting_for(
            &mut a,
            &bad,
            |c| matches!(c, Choice::Host(w) if w.contains("did not compile")),
        );
        assert_eq!(
            c,
            Choice::Host("its pipeline did not compile: exit status 2: too small".to_string())
        );
        // With a wait, a launch takes the device as soon as its child has ended.
        let mut w = Auto::new(Some(ok.clone()), None, Duration::from_secs(60));
        match w.choose(&m1) {
            Choice::Device { waited: Some(d) } => assert!(d >= Duration::from_millis(250), "{d:?}"),
            c => panic!("{c:?}"),
        }
        assert_eq!(w.choose(&m1), Choice::Device { waited: None });
        // Without a warmer every launch goes to the device.
        let mut n = Auto::new(None, None, Duration::ZERO);
        assert_eq!(n.choose(&m1), Choice::Device { waited: None });
        let left: Vec<_> = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("rdna2spv-warm-{}-", std::process::id()))
            })
            .collect();
        assert!(left.is_empty(), "{left:?}");
        let _ = std::fs::remove_file(ok);
    }
}
