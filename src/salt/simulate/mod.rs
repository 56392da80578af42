//! Offline execution of an ordered lowstate, as Salt 3008.5's state
//! executor would run it (`call_chunks`, `call_chunk`, requisite checks over
//! graph predecessors, prereq test runs, watch → `mod_watch`, `listen`,
//! failhard, `__run_num__` accounting). `test.*` states have their known
//! results; every other state takes its outcome from [`Assumptions`].
//! The result mirrors the corpus `runorder.json` summary.

mod outcome;

pub use outcome::{
    test_mod_watch, test_outcome, AssumeError, Assumption, Assumptions, CallError, Outcome,
    TEST_FUNCTIONS,
};

use crate::salt::graph::{gen_tag, ChunkGraph, EdgeBase, GraphChunk, ReqKind};
use crate::value::{Map, Value};
use indexmap::IndexMap;
use std::collections::{HashMap, HashSet};

/// Version of the JSON documents this module emits.
pub const JSON_VERSION: i64 = 1;

/// `state.apply`'s comment when no top file target matches the minion.
pub const NO_TOP_MATCH: &str =
    "No Top file or master_tops data matches found. Please see master log for details.";
/// `state.apply`'s comment when the matched SLS files produced no states.
pub const NO_STATES: &str = "No states found for this minion";

/// Why a state got the result it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// The state function ran.
    Called,
    /// A watch fired: the call made no changes, `mod_watch` replaced it.
    ModWatch,
    /// A `listen`/`listen_in` fired after the run (`listener_` ID).
    Listener,
    /// Not run (requisite failed, onchanges/onfail/prereq skip).
    NotRun,
    /// A prereq test-mode result recorded as the state's result.
    PrereqTest,
    /// Salt rejected the call (unknown function, bad name, ...).
    Error,
    /// A `listen` reference to a state that does not exist.
    ListenError,
}

/// One entry of the run summary.
#[derive(Debug, Clone, PartialEq)]
pub struct StateRun {
    /// State ID.
    pub id: String,
    /// `name`.
    pub name: Value,
    /// State module.
    pub state: String,
    /// Function.
    pub fun: String,
    /// Salt's `__run_num__`.
    pub run_num: Option<u64>,
    /// `true`, `false` or `null`.
    pub result: Value,
    /// Whether the changes dict is non-empty.
    pub changes: bool,
    /// `__state_ran__`.
    pub ran: bool,
    /// Salt's comment.
    pub comment: Value,
    /// Salt's result tag.
    pub tag: String,
    /// `__sls__`.
    pub sls: Option<String>,
    /// What kind of run this was.
    pub kind: RunKind,
}

impl StateRun {
    /// The corpus `runorder.json` row.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), Value::str(self.id.clone()));
        m.insert("name".into(), self.name.clone());
        m.insert("state".into(), Value::str(self.state.clone()));
        m.insert("fun".into(), Value::str(self.fun.clone()));
        m.insert(
            "run_num".into(),
            self.run_num.map_or(Value::Null, |n| Value::Int(n as i64)),
        );
        m.insert("result".into(), self.result.clone());
        m.insert("changes".into(), Value::Bool(self.changes));
        m.insert("ran".into(), Value::Bool(self.ran));
        m.insert("comment".into(), self.comment.clone());
        m.into()
    }
}

/// The simulated run: results in `__run_num__` order, or the compile errors
/// that stopped it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunResult {
    /// Every result, in run order.
    pub states: Vec<StateRun>,
    /// Salt's error strings when nothing ran (compile errors).
    pub errors: Vec<String>,
    /// The run stopped early because of failhard.
    pub failhard_stop: bool,
}

impl RunResult {
    /// An error run (what `state.apply` returns when compiling failed).
    pub fn from_errors(errors: Vec<String>) -> RunResult {
        RunResult {
            errors,
            ..RunResult::default()
        }
    }

    /// Salt's pseudo result when no state ran at all: `comment` is
    /// [`NO_TOP_MATCH`] (no top file target matched) or [`NO_STATES`] (the
    /// matched SLS files declared nothing).
    pub fn no_states(comment: &str) -> RunResult {
        RunResult {
            states: vec![StateRun {
                id: "states".into(),
                name: Value::str("No States"),
                state: "no".into(),
                fun: "None".into(),
                run_num: Some(0),
                result: Value::Bool(false),
                changes: false,
                ran: true,
                comment: Value::str(comment),
                tag: "no_|-states_|-states_|-None".into(),
                sls: None,
                kind: RunKind::Error,
            }],
            ..RunResult::default()
        }
    }

    /// The bare list, exactly like corpus `expected/runorder.json`: rows in
    /// run order, or the error strings.
    pub fn to_value(&self) -> Value {
        if !self.errors.is_empty() {
            return Value::List(self.errors.iter().map(|e| Value::str(e.clone())).collect());
        }
        Value::List(self.states.iter().map(StateRun::to_value).collect())
    }

    /// Our versioned document: `{"version": 1, "states": [...],
    /// "errors": [...], "failhard": bool, "summary": {...}}`.
    pub fn to_document(&self) -> Value {
        let mut m = Map::new();
        m.insert("version".into(), Value::Int(JSON_VERSION));
        let mut states = Vec::with_capacity(self.states.len());
        for s in &self.states {
            let mut row = s.to_value();
            if let Some(rm) = row.as_map_mut() {
                rm.insert("tag".into(), Value::str(s.tag.clone()));
                rm.insert("sls".into(), s.sls.clone().map_or(Value::Null, Value::str));
                rm.insert("kind".into(), Value::str(kind_name(s.kind)));
            }
            states.push(row);
        }
        m.insert("states".into(), Value::List(states.into()));
        m.insert(
            "errors".into(),
            Value::List(self.errors.iter().map(|e| Value::str(e.clone())).collect()),
        );
        m.insert("failhard".into(), Value::Bool(self.failhard_stop));
        let count = |f: &dyn Fn(&StateRun) -> bool| {
            Value::Int(self.states.iter().filter(|s| f(s)).count() as i64)
        };
        let mut sum = Map::new();
        sum.insert("total".into(), Value::Int(self.states.len() as i64));
        sum.insert(
            "succeeded".into(),
            count(&|s| s.result == Value::Bool(true)),
        );
        sum.insert("failed".into(), count(&|s| s.result == Value::Bool(false)));
        sum.insert("changed".into(), count(&|s| s.changes));
        sum.insert("not_run".into(), count(&|s| !s.ran));
        m.insert("summary".into(), Value::Map(sum));
        Value::Map(m)
    }
}

fn kind_name(k: RunKind) -> &'static str {
    match k {
        RunKind::Called => "called",
        RunKind::ModWatch => "mod_watch",
        RunKind::Listener => "listener",
        RunKind::NotRun => "not_run",
        RunKind::PrereqTest => "prereq_test",
        RunKind::Error => "error",
        RunKind::ListenError => "listen_error",
    }
}

/// Options beyond the graph and the assumptions.
#[derive(Debug, Clone, Default)]
pub struct SimOptions {
    /// Global `failhard` (minion config).
    pub failhard: bool,
    /// The state modules that have `mod_watch` on this minion
    /// (`LowOptions::mod_watch`); `None`: every core one
    /// (`grains::modules::MOD_WATCH_STATES`).
    pub mod_watch: Option<std::collections::BTreeSet<String>>,
}

/// Run `graph.order` as Salt 3008.5 would. `failhard` is the minion's global
/// `failhard` option (a state's own `failhard` argument overrides it).
pub fn simulate(graph: &ChunkGraph, assume: &Assumptions, failhard: bool) -> RunResult {
    simulate_with(
        graph,
        assume,
        &SimOptions {
            failhard,
            ..SimOptions::default()
        },
    )
}

/// [`simulate`] with all options. Salt's executor recurses through unmet
/// requisites (up to [`MAX_NESTING`] deep), so the run gets a thread with a
/// stack sized for that, whatever thread calls.
pub fn simulate_with(graph: &ChunkGraph, assume: &Assumptions, opts: &SimOptions) -> RunResult {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("simulate".into())
            .stack_size(SIMULATE_STACK)
            .spawn_scoped(scope, || run_executor(graph, assume, opts));
        match thread {
            // A panic in there is a bug: it goes on unwinding here.
            Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            // No thread to be had: run on this one.
            Err(_) => run_executor(graph, assume, opts),
        }
    })
}

/// The simulation thread's stack: room for [`MAX_NESTING`] levels in a
/// debug build (only the pages used are ever touched).
const SIMULATE_STACK: usize = 256 << 20;

fn run_executor(graph: &ChunkGraph, assume: &Assumptions, opts: &SimOptions) -> RunResult {
    let mut ex = Executor::new(graph, assume, opts);
    let order: Vec<usize> = graph.order.iter().map(|&n| graph.nodes[n].chunk).collect();
    let mut running = Running::default();
    ex.call_chunks(&order, &mut running);
    let failhard_stop = ex.stopped;
    ex.call_listen(&order, &mut running);
    let mut states: Vec<StateRun> = running.rets.into_values().collect();
    // Python's sort is stable: equal numbers keep insertion order.
    states.sort_by_key(|s| (s.run_num.is_none(), s.run_num.unwrap_or(0)));
    RunResult {
        states,
        errors: Vec::new(),
        failhard_stop,
    }
}

/// A low chunk as the executor holds it (`__prereq__` is mutable in Salt).
#[derive(Debug, Clone)]
struct Low {
    chunk: GraphChunk,
    id: String,
    fun: String,
    tag: String,
    prereq: bool,
    real_node: Option<usize>,
    test_node: Option<usize>,
    listener: bool,
}

/// Salt's requisite status of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Unmet,
    Fail,
    SkipReq,
    SkipWatch,
    Pre,
    Onfail,
    Onchanges,
    Change,
    Met,
}

/// Salt's `running` dict for one `call_chunks`.
#[derive(Default)]
struct Running {
    rets: IndexMap<String, StateRun>,
    /// The `__FAILHARD__` marker.
    failhard: bool,
}

struct Executor<'a> {
    graph: &'a ChunkGraph,
    assume: &'a Assumptions,
    failhard: bool,
    mod_watch: HashSet<String>,
    lows: Vec<Low>,
    pre: HashMap<String, StateRun>,
    run_num: u64,
    stopped: bool,
    /// Chunks whose `call_chunk` is on the stack, and how deep it is: a
    /// requisite cycle the compile let through (Salt 3006 checks only
    /// direct ones) or a very long chain ends in "Recursive requisite
    /// found" instead of recursing without end.
    active: Vec<bool>,
    nesting: usize,
}

/// Nested `call_chunk`s at most (Salt 3006 meets Python's recursion limit
/// at about that depth).
const MAX_NESTING: usize = 400;

impl<'a> Executor<'a> {
    fn new(graph: &'a ChunkGraph, assume: &'a Assumptions, opts: &SimOptions) -> Executor<'a> {
        let lows = graph
            .chunks
            .iter()
            .enumerate()
            .map(|(i, c)| Low {
                chunk: c.clone(),
                id: c.id.clone(),
                fun: c.fun.clone(),
                tag: c.tag.clone(),
                prereq: c.arg("__prereq__").is_some_and(Value::truthy),
                real_node: Some(graph.real_node(i)),
                test_node: graph.test_node(i),
                listener: false,
            })
            .collect();
        let mod_watch: HashSet<String> = match &opts.mod_watch {
            Some(set) => set.iter().cloned().collect(),
            None => crate::salt::grains::modules::MOD_WATCH_STATES
                .iter()
                .map(|(s, _)| s.to_string())
                .collect(),
        };
        Executor {
            graph,
            assume,
            failhard: opts.failhard,
            mod_watch,
            lows,
            pre: HashMap::new(),
            run_num: 0,
            stopped: false,
            active: Vec::new(),
            nesting: 0,
        }
    }

    fn next_run_num(&mut self) -> u64 {
        let n = self.run_num;
        self.run_num += 1;
        n
    }

    /// `get_dependencies`: the requisite type and low of each in-edge of the
    /// low's node (its prereq test node while `__prereq__` is set).
    fn dependencies(&self, li: usize) -> Vec<(ReqKind, usize)> {
        let low = &self.lows[li];
        let node = if low.prereq {
            low.test_node
        } else {
            low.real_node
        };
        match node {
            Some(n) => self
                .graph
                .in_edges(n)
                .map(|e| (e.kind, self.graph.nodes[e.from].chunk))
                .collect(),
            None => Vec::new(),
        }
    }

    /// `call_chunks`; the main run's `stopped` records a failhard stop.
    fn call_chunks(&mut self, order: &[usize], running: &mut Running) {
        for &li in order {
            if running.failhard {
                running.failhard = false;
                self.stopped = true;
                return;
            }
            if running.rets.contains_key(&self.lows[li].tag) {
                continue;
            }
            self.call_chunk(li, running, 0);
            if self.check_failhard(li, running) {
                self.stopped = true;
                return;
            }
        }
    }

    fn check_failhard(&self, li: usize, running: &Running) -> bool {
        let low = &self.lows[li];
        let on = match low.chunk.arg("failhard") {
            Some(v) => v.truthy(),
            None => self.failhard,
        };
        if !on {
            return false;
        }
        match running.rets.get(&low.tag) {
            Some(r) if r.result.is_null() => false,
            Some(r) => !r.result.truthy(),
            None => false,
        }
    }

    fn lookup<'r>(
        &'r self,
        base: EdgeBase,
        tag: &str,
        running: &'r Running,
    ) -> Option<&'r StateRun> {
        if base == EdgeBase::Prereq {
            self.pre.get(tag)
        } else {
            running.rets.get(tag)
        }
    }

    /// `_check_requisites`: the status and the dependencies grouped by type.
    fn check_requisites(
        &self,
        li: usize,
        running: &Running,
    ) -> (Status, Vec<(ReqKind, Vec<usize>)>) {
        let mut reqs: Vec<(ReqKind, Vec<usize>)> = Vec::new();
        for (kind, dep) in self.dependencies(li) {
            match reqs.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, v)) => v.push(dep),
                None => reqs.push((kind, vec![dep])),
            }
        }
        #[derive(Default)]
        struct Stats {
            unmet: bool,
            fail: bool,
            skip_req: bool,
            onfail: bool,
            onchanges: bool,
            onchangesmet: bool,
            change: bool,
            premet: bool,
            pre: bool,
            met: bool,
        }
        let mut fun = Stats::default();
        for (kind, deps) in &reqs {
            let base = kind.base();
            let mut st = Stats::default();
            for &d in deps {
                let Some(r) = self.lookup(base, &self.lows[d].tag, running) else {
                    st.unmet = true;
                    continue;
                };
                match base {
                    EdgeBase::Onfail => {
                        if r.result == Value::Bool(true) {
                            st.onfail = true;
                            continue;
                        }
                    }
                    EdgeBase::Onchanges => {
                        if r.result == Value::Bool(false) || !r.changes {
                            st.onchanges = true;
                        } else {
                            st.onchangesmet = true;
                        }
                        continue;
                    }
                    _ => {
                        if r.result == Value::Bool(false) {
                            st.fail = true;
                            continue;
                        }
                    }
                }
                if base == EdgeBase::Watch && r.changes {
                    st.change = true;
                    continue;
                }
                if base == EdgeBase::Prereq {
                    if r.result.is_null() {
                        st.premet = true;
                    } else {
                        st.pre = true;
                    }
                } else if r.ran {
                    st.met = true;
                }
            }
            if kind.is_any() || *kind == ReqKind::Onfail {
                if st.met || st.change {
                    st.fail = false;
                }
                if st.onchangesmet {
                    st.onchanges = false;
                    st.fail = false;
                }
                if st.onfail && st.met {
                    st.onfail = false;
                }
            }
            if kind.is_all() && st.onfail {
                st.met = false;
            }
            fun.unmet |= st.unmet;
            fun.fail |= st.fail;
            fun.skip_req |= st.skip_req;
            fun.onfail |= st.onfail;
            fun.onchanges |= st.onchanges;
            fun.onchangesmet |= st.onchangesmet;
            fun.change |= st.change;
            fun.premet |= st.premet;
            fun.pre |= st.pre;
            fun.met |= st.met;
        }
        let status = if fun.unmet {
            Status::Unmet
        } else if fun.fail {
            Status::Fail
        } else if fun.skip_req && (fun.onchangesmet || fun.premet) {
            Status::SkipReq
        } else if fun.skip_req && fun.change {
            Status::SkipWatch
        } else if fun.pre {
            if fun.premet {
                Status::Met
            } else {
                Status::Pre
            }
        } else if fun.onfail && !fun.onchangesmet {
            Status::Onfail
        } else if fun.onchanges && !fun.onchangesmet {
            Status::Onchanges
        } else if fun.change {
            Status::Change
        } else if fun.onfail {
            Status::Onfail
        } else {
            Status::Met
        };
        (status, reqs)
    }

    /// `call_chunk`.
    fn call_chunk(&mut self, li: usize, running: &mut Running, depth: usize) {
        if self.active.len() < self.lows.len() {
            self.active.resize(self.lows.len(), false);
        }
        if self.active[li] || self.nesting >= MAX_NESTING {
            let r = self.recursive_result(li);
            running.rets.insert(r.tag.clone(), r);
            return;
        }
        self.active[li] = true;
        self.nesting += 1;
        self.call_chunk_inner(li, running, depth);
        self.nesting -= 1;
        self.active[li] = false;
    }

    /// Salt's result for a chunk whose requisites recurse (Salt records
    /// the current run number without advancing it).
    fn recursive_result(&self, li: usize) -> StateRun {
        let r = self.result_of(
            li,
            self.run_num,
            Value::Bool(false),
            "Recursive requisite found",
        );
        StateRun {
            ran: true,
            kind: RunKind::Error,
            ..r
        }
    }

    /// A result of chunk `li` that did not run its function: numbered
    /// `run_num`, no changes.
    fn result_of(&self, li: usize, run_num: u64, result: Value, comment: &str) -> StateRun {
        let low = &self.lows[li];
        StateRun {
            id: low.id.clone(),
            name: low.chunk.name.clone(),
            state: low.chunk.state.clone(),
            fun: low.fun.clone(),
            run_num: Some(run_num),
            result,
            changes: false,
            ran: false,
            comment: Value::str(comment),
            tag: low.tag.clone(),
            sls: Some(low.chunk.sls.clone()),
            kind: RunKind::NotRun,
        }
    }

    fn call_chunk_inner(&mut self, li: usize, running: &mut Running, depth: usize) {
        let (status, reqs) = self.check_requisites(li, running);
        let tag = self.lows[li].tag.clone();
        let prereq = self.lows[li].prereq;
        match status {
            Status::Unmet => self.call_unmet(li, running, depth),
            Status::Met => self.call_and_store(li, running),
            Status::SkipReq => self.not_run(
                li,
                running,
                Value::Bool(true),
                "State was not run because requisites were skipped by another state",
            ),
            Status::SkipWatch if !prereq => {
                let mut r = self.call(li, false);
                if let Value::Str(c) = &mut r.comment {
                    c.push_str(
                        " mod_watch was not run because requisites were skipped by another state",
                    );
                }
                running.rets.insert(tag, r);
            }
            Status::Fail => {
                if let Some(mut r) = self.pre.get(&tag).cloned() {
                    // The prereq test-mode result stands in, without changes.
                    r.changes = false;
                    r.run_num = Some(self.next_run_num());
                    let low = &self.lows[li];
                    r.sls = Some(low.chunk.sls.clone());
                    r.id = low.id.clone();
                    r.name = low.chunk.name.clone();
                    r.kind = RunKind::PrereqTest;
                    self.pre.insert(tag.clone(), r.clone());
                    running.rets.insert(tag, r);
                } else {
                    let mut failed: Vec<String> = Vec::new();
                    for (_, deps) in &reqs {
                        for &d in deps {
                            let dt = &self.lows[d].tag;
                            let r = self.pre.get(dt).or_else(|| running.rets.get(dt));
                            if r.is_some_and(|r| r.result == Value::Bool(false)) {
                                let c = &self.lows[d].chunk;
                                let key = format!("{}.{}", c.sls, self.lows[d].id);
                                if !failed.contains(&key) {
                                    failed.push(key);
                                }
                            }
                        }
                    }
                    let comment = format!("One or more requisite failed: {}", failed.join(", "));
                    self.not_run(li, running, Value::Bool(false), &comment);
                }
            }
            Status::Change if !prereq => {
                let r = self.call(li, false);
                let r = if !r.changes { self.call(li, true) } else { r };
                running.rets.insert(tag, r);
            }
            Status::Pre => self.not_run(li, running, Value::Bool(true), "No changes detected"),
            Status::Onfail => self.not_run(
                li,
                running,
                Value::Bool(true),
                "State was not run because onfail req did not change",
            ),
            Status::Onchanges => self.not_run(
                li,
                running,
                Value::Bool(true),
                "State was not run because none of the onchanges reqs changed",
            ),
            Status::SkipWatch | Status::Change => self.call_and_store(li, running),
        }
    }

    /// A plain call: into `pre` in prereq test mode, else into `running`.
    fn call_and_store(&mut self, li: usize, running: &mut Running) {
        let tag = self.lows[li].tag.clone();
        if self.lows[li].prereq {
            let r = self.call(li, false);
            self.pre.insert(tag, r);
        } else {
            let r = self.call(li, false);
            running.rets.insert(tag, r);
        }
    }

    /// `_assign_not_run_result_dict`.
    fn not_run(&mut self, li: usize, running: &mut Running, result: Value, comment: &str) {
        let r = self.not_run_result(li, result, comment);
        let tag = self.lows[li].tag.clone();
        if self.lows[li].prereq {
            self.pre.insert(tag.clone(), r.clone());
        }
        running.rets.insert(tag, r);
    }

    /// The numbered result of a chunk that did not run.
    fn not_run_result(&mut self, li: usize, result: Value, comment: &str) -> StateRun {
        let run_num = self.next_run_num();
        self.result_of(li, run_num, result, comment)
    }

    /// `_call_unmet_requisites`: run missing dependencies first, then retry.
    fn call_unmet(&mut self, li: usize, running: &mut Running, depth: usize) {
        for (_, d) in self.dependencies(li) {
            if !running.rets.contains_key(&self.lows[d].tag) {
                self.call_chunk(d, running, 0);
                if self.check_failhard(d, running) {
                    running.failhard = true;
                    return;
                }
            }
        }
        let tag = self.lows[li].tag.clone();
        if self.lows[li].prereq {
            let (status, _) = self.check_requisites(li, running);
            if status == Status::Pre {
                let r = self.not_run_result(li, Value::Bool(true), "No changes detected");
                self.pre.insert(tag, r);
            } else {
                let mut r = self.call(li, false);
                if !r.changes && status == Status::Change {
                    r.changes = true;
                    r.result = Value::Null;
                }
                self.pre.insert(tag, r);
            }
        } else if depth + 1 >= 20 {
            let r = self.recursive_result(li);
            running.rets.insert(tag, r);
        } else {
            // The retry of the same chunk: not a re-entry.
            self.call_chunk_inner(li, running, depth + 1);
        }
        if self.check_failhard(li, running) {
            running.failhard = true;
        }
    }

    /// `State.call`: verify, run the function (test mode while prereq),
    /// number the result. `mod_watch` calls `<state>.mod_watch`.
    fn call(&mut self, li: usize, mod_watch: bool) -> StateRun {
        let low = &self.lows[li];
        let c = &low.chunk;
        let fun = if mod_watch {
            "mod_watch"
        } else {
            low.fun.as_str()
        };
        let mut errors: Vec<String> = Vec::new();
        if c.name.truthy() && !matches!(c.name, Value::Str(_)) {
            errors.push(format!(
                "ID '{}' in SLS '{}' is not formed as a string, but is a {}",
                c.name.py_str(),
                c.sls,
                c.name.py_type_name()
            ));
        }
        let exists = if c.state == "test" {
            TEST_FUNCTIONS.contains(&fun)
        } else if fun == "mod_watch" {
            self.mod_watch.contains(&c.state)
        } else {
            true
        };
        if errors.is_empty() && !exists {
            errors.push(format!(
                "State '{}.{}' was not found in SLS '{}'",
                c.state, fun, c.sls
            ));
        }
        let base = StateRun {
            id: low.id.clone(),
            name: c.name.clone(),
            state: c.state.clone(),
            fun: low.fun.clone(),
            run_num: None,
            result: Value::Bool(false),
            changes: false,
            ran: true,
            comment: Value::str(""),
            tag: low.tag.clone(),
            sls: Some(c.sls.clone()),
            kind: if low.listener {
                RunKind::Listener
            } else if mod_watch {
                RunKind::ModWatch
            } else {
                RunKind::Called
            },
        };
        if !errors.is_empty() {
            let comment: String = errors.iter().map(|e| format!("{e}\n")).collect();
            let run_num = self.next_run_num();
            // No `__id__` in this result: the summary falls back to the tag's ID.
            return StateRun {
                run_num: Some(run_num),
                comment: Value::str(comment),
                sls: None,
                kind: RunKind::Error,
                ..base
            };
        }
        let test_mode = low.prereq;
        let outcome: Result<Outcome, CallError> = if c.state == "test" {
            test_outcome(c, fun, test_mode)
                .unwrap_or_else(|| Err(CallError(format!("'{fun}' is not available"))))
        } else if fun == "mod_watch" {
            Ok(self.assume.mod_watch_outcome(c))
        } else {
            Ok(self.assume.outcome(c, test_mode))
        };
        let mut r = match outcome {
            Ok(o) => StateRun {
                result: o.result,
                changes: o.changes,
                comment: o.comment,
                ..base
            },
            Err(CallError(msg)) => StateRun {
                result: Value::Bool(false),
                changes: false,
                comment: Value::str(format!("An exception occurred in this state: {msg}")),
                kind: RunKind::Error,
                ..base
            },
        };
        if test_mode {
            self.lows[li].prereq = false;
            r.kind = RunKind::PrereqTest;
            return r;
        }
        r.run_num = Some(self.next_run_num());
        r
    }

    /// `call_listen`: after the run, fire `mod_watch` for every listener
    /// whose target changed; report references to missing states.
    fn call_listen(&mut self, order: &[usize], running: &mut Running) {
        // crefs: (state, __id__, name) → chunk, in lowstate order.
        let mut crefs: IndexMap<(String, String, Value), usize> = IndexMap::new();
        for &li in order {
            let c = &self.lows[li].chunk;
            crefs.insert((c.state.clone(), c.id.clone(), c.name.clone()), li);
        }
        let in_cref = |cref: &(String, String, Value), v: &Value| -> bool {
            match v {
                Value::Str(s) => *s == cref.0 || *s == cref.1 || *v == cref.2,
                other => *other == cref.2,
            }
        };
        // Listener key: (state, id-or-target, name-or-"lookup"), references.
        let mut listeners: Vec<((String, Value), Vec<Value>)> = Vec::new();
        for &li in order {
            let c = &self.lows[li].chunk;
            if let Some(l) = c.arg("listen") {
                let refs = l.as_list().map(|l| l.to_vec()).unwrap_or_default();
                listeners.push(((c.state.clone(), Value::str(c.id.clone())), refs));
            }
            if let Some(Value::List(items)) = c.arg("listen_in") {
                for item in items {
                    if let Value::Map(m) = item {
                        for (k, v) in m {
                            let mut r = Map::new();
                            r.insert(Value::str(c.state.clone()), Value::str(c.id.clone()));
                            listeners.push(((k.py_str(), v.clone()), vec![Value::Map(r)]));
                        }
                    }
                }
            }
        }
        let mut watchers: Vec<usize> = Vec::new();
        let mut errors: IndexMap<String, StateRun> = IndexMap::new();
        let listen_error = |key: &str, val: &Value| -> (String, StateRun) {
            let id = format!("listen_{}", val.py_str());
            let name = format!("listen_{key}");
            let tag = gen_tag("Listen_Error", &id, &name, "Listen_Error");
            let r = StateRun {
                id,
                name: Value::str(format!("listen_{key}:{}", val.py_str())),
                state: "Listen_Error".into(),
                fun: "Listen_Error".into(),
                run_num: None,
                result: Value::Bool(false),
                changes: false,
                ran: true,
                comment: Value::str(format!(
                    "Referenced state {key}: {} does not exist",
                    val.py_str()
                )),
                tag: tag.clone(),
                sls: None,
                kind: RunKind::ListenError,
            };
            (tag, r)
        };
        for ((kstate, kval), refs) in &listeners {
            for listen_to in refs {
                let pairs: Vec<(String, Value)> = match listen_to {
                    Value::Map(m) => m.iter().map(|(k, v)| (k.py_str(), v.clone())).collect(),
                    other => {
                        // A bare ID or name: the last chunk with that ID or name.
                        let mut found = None;
                        for &li in order {
                            let c = &self.lows[li].chunk;
                            if Value::str(c.id.clone()) == *other || c.name == *other {
                                found = Some((c.state.clone(), Value::str(c.id.clone())));
                            }
                        }
                        match found {
                            Some(p) => vec![p],
                            None => continue,
                        }
                    }
                };
                for (lkey, lval) in pairs {
                    let targets: Vec<usize> = crefs
                        .iter()
                        .filter(|(cr, _)| cr.0 == lkey && in_cref(cr, &lval))
                        .map(|(_, &li)| li)
                        .collect();
                    if targets.is_empty() {
                        let (t, r) = listen_error(&lkey, &lval);
                        errors.insert(t, r);
                        continue;
                    }
                    for t in targets {
                        let changed = running.rets.get(&self.lows[t].tag).map(|r| r.changes);
                        if changed != Some(true) {
                            continue;
                        }
                        let sources: Vec<usize> = crefs
                            .iter()
                            .filter(|(cr, _)| cr.0 == *kstate && in_cref(cr, kval))
                            .map(|(_, &li)| li)
                            .collect();
                        if sources.is_empty() {
                            let (t, r) = listen_error(kstate, kval);
                            errors.insert(t, r);
                            continue;
                        }
                        for s in sources {
                            let orig = &self.lows[s];
                            let id = format!("listener_{}", orig.id);
                            let tag = gen_tag(
                                &orig.chunk.state,
                                &id,
                                &orig.chunk.name_str(),
                                "mod_watch",
                            );
                            let low = Low {
                                chunk: orig.chunk.clone(),
                                id,
                                fun: "mod_watch".into(),
                                tag,
                                prereq: orig.prereq,
                                real_node: None,
                                test_node: None,
                                listener: true,
                            };
                            self.lows.push(low);
                            watchers.push(self.lows.len() - 1);
                        }
                    }
                }
            }
        }
        let mut fresh = Running::default();
        let stopped = self.stopped;
        self.call_chunks(&watchers, &mut fresh);
        self.stopped = stopped;
        for (tag, r) in fresh.rets {
            running.rets.insert(tag, r);
        }
        for (tag, mut r) in errors {
            r.run_num = Some(self.next_run_num());
            running.rets.insert(tag, r);
        }
    }
}

#[cfg(test)]
mod tests;
