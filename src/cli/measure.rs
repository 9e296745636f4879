//! How `warpjit bench` measures: interleaved rounds of the contestants, each held to a core in
//! turn for the one-thread side, and the summaries (best, median, spread, scaling) it prints.

use std::sync::Arc;
use std::time::Instant;

/// How long, at least, [`rounds`] measures each contestant (engine). A ratio of two engines is
/// only sound when both were measured in the same stretch of time, and a parallel run only
/// undisturbed when the host leaves every core free for its whole length: a run of a few
/// milliseconds needs more tries than `iters` to find such a stretch on a shared machine, and a
/// second of them per engine costs little.
pub const SECONDS_PER_CONTESTANT: f64 = 1.0;

/// Whether a measurement that has made `rounds` rounds since `start` goes on: until it has at
/// least `iters` of them and `seconds` have passed.
pub fn more_rounds(rounds: usize, iters: u32, start: Instant, seconds: f64) -> bool {
    rounds < iters.max(1) as usize || start.elapsed().as_secs_f64() < seconds
}

/// How many host cores this process may run on (those [`on_core`] takes turns on).
pub fn host_cores() -> usize {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `cpu_set_t` is plain bits; the call fills the set for the calling thread.
        let n = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
                libc::CPU_COUNT(&set) as usize
            } else {
                0
            }
        };
        if n > 0 {
            return n;
        }
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `f` on the calling thread held to one host core, the `k`-th (wrapping) of those it may
/// run on, then lets it run on all of them again (where the host cannot pin a thread, simply
/// runs `f`). A scaling measurement runs its one-thread runs on each core in turn: a virtual
/// machine's cores do not always run at the same speed, and a one-thread baseline left on a
/// slowed core would make the speedup look better than the code's.
pub fn on_core<R>(k: usize, f: impl FnOnce() -> R) -> R {
    // (`host_cores` counts the same set: run `k` is held to core `k % host_cores()`.)
    #[cfg(target_os = "linux")]
    {
        /// Gives the thread its old cores back when dropped.
        struct Restore(libc::cpu_set_t);
        impl Drop for Restore {
            fn drop(&mut self) {
                // SAFETY: sets the calling thread's affinity from a valid set.
                unsafe {
                    libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.0);
                }
            }
        }
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `cpu_set_t` is plain bits (all zero is the empty set); the calls read and
        // write only the sets given, for the calling thread (pid 0).
        let pinned = unsafe {
            let mut old: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut old) != 0 {
                None
            } else {
                let cores: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
                    .filter(|&c| libc::CPU_ISSET(c, &old))
                    .collect();
                let mut one: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(
                    cores.get(k % cores.len().max(1)).copied().unwrap_or(0),
                    &mut one,
                );
                (cores.len() > 1 && libc::sched_setaffinity(0, size, &one) == 0)
                    .then_some(Restore(old))
            }
        };
        let r = f();
        drop(pinned);
        r
    }
    #[cfg(not(target_os = "linux"))]
    f()
}

/// Which run a [`rounds`] contestant is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The work on one host thread, held to the `k`-th host core ([`on_core`]).
    One(usize),
    /// The work on all the measurement's host threads.
    Many,
}

/// One run's wall-clock seconds (as the contestant timed it) and, on one thread, its core.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    /// Seconds the work took.
    pub seconds: f64,
    /// For a run on one host thread, the host core it was held to (its index among those the
    /// process may run on).
    pub core: Option<usize>,
}

/// Every timed run of one [`rounds`] contestant, per side, in the order they ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Runs {
    /// The runs on all the host threads.
    pub many: Vec<Run>,
    /// The runs on one host thread (none unless the measurement scales).
    pub one: Vec<Run>,
}

impl Runs {
    fn seconds(runs: &[Run]) -> Vec<f64> {
        let mut s: Vec<f64> = runs.iter().map(|r| r.seconds).collect();
        s.sort_by(f64::total_cmp);
        s
    }

    /// The best (least disturbed) run on all the host threads, in seconds.
    pub fn best(&self) -> f64 {
        Self::seconds(&self.many)
            .first()
            .copied()
            .unwrap_or(f64::NAN)
    }

    /// The median run on all the host threads, in seconds.
    pub fn median(&self) -> f64 {
        let s = Self::seconds(&self.many);
        s.get(s.len() / 2).copied().unwrap_or(f64::NAN)
    }

    /// The slowest run on all the host threads over the fastest.
    pub fn spread(&self) -> f64 {
        let s = Self::seconds(&self.many);
        match (s.first(), s.last()) {
            (Some(a), Some(b)) => b / a.max(1e-12),
            _ => f64::NAN,
        }
    }

    /// The scaling from one host thread to `threads` (the best run of each; the best run on
    /// one thread held to each core), if there were runs on one.
    pub fn scaling(&self, threads: usize) -> Option<Scaling> {
        let one = Self::seconds(&self.one).first().copied()?;
        let mut per_core: Vec<f64> = Vec::new();
        for r in &self.one {
            let c = r.core.unwrap_or(0);
            if per_core.len() <= c {
                per_core.resize(c + 1, f64::INFINITY);
            }
            per_core[c] = per_core[c].min(r.seconds);
        }
        Some(Scaling {
            threads,
            one_thread_seconds: one,
            n_threads_seconds: self.best(),
            one_thread_seconds_per_core: per_core,
        })
    }
}

/// A [`rounds`] contestant: runs the work once on the side asked and returns the seconds it
/// took (timed by the contestant, so that it can leave out set-up such as loading a trace).
pub type Contestant<'a> = dyn FnMut(Side) -> Result<f64, String> + 'a;

/// Measures contestants (engines doing the same work) in interleaved rounds, so that every
/// ratio between them, and every scaling figure, compares runs from the same stretch of time:
/// on a shared host that slows for seconds at a time, engines measured one after the other
/// would each get a different machine.
///
/// After one warm-up run of each contestant on each side, every round runs each contestant
/// once on all the host threads and, with `scale`, once on one thread, held to each host core
/// in turn (round `r` to the `r`-th: a virtual machine's cores do not always run at the same
/// speed, and a one-thread baseline left on a slowed core would flatter the speedup). The
/// contestants' order rotates from round to round, and so does which side of each runs first,
/// so none always runs after the same neighbour. Then `between` runs with the round's number
/// (`warpjit bench` takes a compile-latency sample there, which so spreads over the same
/// stretch). Rounds go on until there are `iters` of them and `seconds` have passed.
/// The first error a contestant returns ends the measurement.
pub fn rounds(
    iters: u32,
    seconds: f64,
    scale: bool,
    contestants: &mut [&mut Contestant<'_>],
    mut between: impl FnMut(usize),
) -> Result<Vec<Runs>, String> {
    let cores = host_cores();
    let timed = |c: &mut Contestant<'_>, side: Side| -> Result<Run, String> {
        let seconds = c(side)?;
        Ok(Run {
            seconds,
            core: match side {
                Side::One(k) => Some(k % cores),
                Side::Many => None,
            },
        })
    };
    for c in contestants.iter_mut() {
        if scale {
            c(Side::One(0))?;
        }
        c(Side::Many)?;
    }
    let n = contestants.len();
    let mut runs = vec![Runs::default(); n];
    let start = Instant::now();
    let mut round = 0;
    while more_rounds(round, iters, start, seconds) {
        for i in 0..n {
            let at = (round + i) % n;
            let c = &mut *contestants[at];
            let sides = match (scale, round % 2 == 0) {
                (false, _) => [Some(Side::Many), None],
                (true, true) => [Some(Side::One(round)), Some(Side::Many)],
                (true, false) => [Some(Side::Many), Some(Side::One(round))],
            };
            for side in sides.into_iter().flatten() {
                let r = timed(c, side)?;
                match side {
                    Side::One(_) => runs[at].one.push(r),
                    Side::Many => runs[at].many.push(r),
                }
            }
        }
        between(round);
        round += 1;
    }
    Ok(runs)
}

/// How a workload's throughput grows from one host thread to several, for one engine.
#[derive(Clone, Debug, PartialEq)]
pub struct Scaling {
    /// The host threads of the second measurement.
    pub threads: usize,
    /// Seconds a run takes on one host thread.
    pub one_thread_seconds: f64,
    /// Seconds it takes on `threads` host threads.
    pub n_threads_seconds: f64,
    /// Seconds a run takes on one host thread held to each host core (the best run there; by
    /// core index, infinite for a core no run was held to).
    pub one_thread_seconds_per_core: Vec<f64>,
}

impl Scaling {
    /// How many times faster `threads` host threads run it than one.
    pub fn speedup(&self) -> f64 {
        self.one_thread_seconds / self.n_threads_seconds.max(1e-12)
    }

    /// The speedup `threads` host threads would reach if each ran at the speed one thread had
    /// on its core: the sum, over the `threads` fastest cores, of the best one-thread time over
    /// that core's. On a virtual machine whose cores do not run at one speed this is what the
    /// host allows; it is `threads` only when every core is as fast as the fastest. `None`
    /// when fewer cores than `threads` were measured.
    pub fn ideal_speedup(&self) -> Option<f64> {
        let mut t: Vec<f64> = self
            .one_thread_seconds_per_core
            .iter()
            .copied()
            .filter(|t| t.is_finite())
            .collect();
        t.sort_by(f64::total_cmp);
        let fastest = *t.first()?;
        (t.len() >= self.threads).then(|| {
            t[..self.threads]
                .iter()
                .map(|s| fastest / s.max(1e-12))
                .sum()
        })
    }
}

/// The geometric mean of `xs` (`None` if empty).
pub fn geometric_mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| (xs.iter().map(|r| r.ln()).sum::<f64>() / xs.len() as f64).exp())
}

/// Times `f` and returns its seconds (for a [`rounds`] contestant that times all it does).
pub fn timed(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// How many compile samples, at least, [`compile_latency`] takes the median of.
pub const LATENCY_SAMPLES: usize = 21;

/// One tier-1 compile-latency sample of `prog`, in microseconds per guest instruction: the time
/// a new JIT's tier 1 takes to compile every block of the program (in both variants, any active
/// mask and full warp), divided by twice the program's instruction count. A compile during a
/// run is one such sample, moved by whatever the run left in the caches (`bench --json` gives
/// that time as the JIT's `compile_seconds`). `None` if the host cannot run the JIT or a block
/// fails to compile.
pub fn compile_sample(prog: &Arc<warpjit::ir::Program>) -> Option<f64> {
    use warpjit::jit::{Jit, Tier};
    let insts = prog.inst_count().max(1) as f64;
    let jit = Jit::new().ok()?;
    jit.compile_all_tier(prog, Tier::One).ok()?;
    Some(jit.compile_stats().nanos as f64 / 1e3 / (2.0 * insts))
}

/// Tier-1 compile latency of `prog` ([`compile_sample`]): the median of `samples` (taken
/// earlier: `warpjit bench` takes one after each measuring round, the second of two compiles in
/// a row, so that samples spread over the time the engines were measured) and as many more,
/// back to back, as it takes to have [`LATENCY_SAMPLES`]. `None` if a sample cannot be taken.
pub fn compile_latency(prog: &Arc<warpjit::ir::Program>, mut samples: Vec<f64>) -> Option<f64> {
    while samples.len() < LATENCY_SAMPLES {
        samples.push(compile_sample(prog)?);
    }
    samples.sort_by(f64::total_cmp);
    Some(samples[samples.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A contestant that logs its calls as `(name, side)` and takes the seconds given per side.
    fn logging<'a>(
        name: char,
        log: &'a std::cell::RefCell<Vec<(char, Side)>>,
        one: f64,
        many: f64,
    ) -> impl FnMut(Side) -> Result<f64, String> + 'a {
        move |side| {
            log.borrow_mut().push((name, side));
            Ok(match side {
                Side::One(_) => one,
                Side::Many => many,
            })
        }
    }

    #[test]
    fn rounds_interleave_the_contestants_and_rotate_their_order_and_sides() {
        let log = std::cell::RefCell::new(Vec::new());
        let mut a = logging('a', &log, 4.0, 2.0);
        let mut b = logging('b', &log, 6.0, 4.0);
        let mut between = Vec::new();
        let runs = rounds(3, 0.0, true, &mut [&mut a, &mut b], |r| between.push(r)).unwrap();
        use Side::*;
        let want = [
            // Warm-ups, then round 0 (one thread first), 1 (b first, many first), 2.
            ('a', One(0)),
            ('a', Many),
            ('b', One(0)),
            ('b', Many),
            ('a', One(0)),
            ('a', Many),
            ('b', One(0)),
            ('b', Many),
            ('b', Many),
            ('b', One(1)),
            ('a', Many),
            ('a', One(1)),
            ('a', One(2)),
            ('a', Many),
            ('b', One(2)),
            ('b', Many),
        ];
        assert_eq!(log.borrow().as_slice(), &want[..]);
        assert_eq!(between, [0, 1, 2]);
        assert_eq!((runs[0].one.len(), runs[0].many.len()), (3, 3));
        let s = runs[1].scaling(2).unwrap();
        assert_eq!((s.one_thread_seconds, s.n_threads_seconds), (6.0, 4.0));
        assert_eq!(s.speedup(), 1.5);
    }

    #[test]
    fn without_scaling_only_the_many_side_runs() {
        let log = std::cell::RefCell::new(Vec::new());
        let mut a = logging('a', &log, 1.0, 1.0);
        let runs = rounds(2, 0.0, false, &mut [&mut a], |_| {}).unwrap();
        assert!(log.borrow().iter().all(|(_, s)| *s == Side::Many));
        assert_eq!(log.borrow().len(), 3, "a warm-up and two rounds");
        assert_eq!(runs[0].scaling(2), None);
    }

    #[test]
    fn a_contestant_error_ends_the_measurement() {
        let mut calls = 0;
        let mut bad = |_| {
            calls += 1;
            if calls == 3 {
                Err("fault".to_string())
            } else {
                Ok(1.0)
            }
        };
        assert_eq!(
            rounds(5, 0.0, true, &mut [&mut bad], |_| {}),
            Err("fault".to_string())
        );
        assert_eq!(calls, 3);
    }

    #[test]
    fn runs_summarise_best_median_and_spread() {
        let r = |s: f64, core: Option<usize>| Run { seconds: s, core };
        let runs = Runs {
            many: vec![r(3.0, None), r(1.0, None), r(2.0, None)],
            one: vec![r(4.0, Some(0))],
        };
        assert_eq!((runs.best(), runs.median(), runs.spread()), (1.0, 2.0, 3.0));
        // One core measured: no ideal for two threads.
        assert_eq!(runs.scaling(2).unwrap().ideal_speedup(), None);
    }

    /// The ideal speedup adds, over the fastest cores, each core's speed relative to the fastest
    /// (its best one-thread run), and the rounds record which core each such run was held to.
    #[test]
    fn the_ideal_speedup_follows_each_cores_best_run() {
        let r = |s: f64, core: usize| Run {
            seconds: s,
            core: Some(core),
        };
        let runs = Runs {
            many: vec![r(1.0, 0)],
            one: vec![r(3.0, 0), r(4.0, 1), r(2.0, 0), r(5.0, 1)],
        };
        let s = runs.scaling(2).unwrap();
        assert_eq!(s.one_thread_seconds_per_core, [2.0, 4.0]);
        assert_eq!(s.ideal_speedup(), Some(1.5));
        assert_eq!(runs.scaling(1).unwrap().ideal_speedup(), Some(1.0));
        assert_eq!(runs.scaling(3).unwrap().ideal_speedup(), None);
        let mut a = |_| Ok(1.0);
        let measured = rounds(4, 0.0, true, &mut [&mut a], |_| {}).unwrap();
        let cores: Vec<Option<usize>> = measured[0].one.iter().map(|r| r.core).collect();
        let n = host_cores();
        assert_eq!(cores, (0..4).map(|k| Some(k % n)).collect::<Vec<_>>());
    }
}
