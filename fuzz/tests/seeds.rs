//! Every target's seeds pass every oracle in a plain build, so the fuzz targets keep step with
//! the runtime between fuzzing runs (`scripts/fuzz.sh`). One test, so that no other test of
//! this process allocates while the memory oracle measures.

use mcp_fuzz::targets;

#[test]
fn every_seed_of_every_target_passes_every_oracle() {
    for target in [
        targets::state::TARGET,
        targets::dispatch::TARGET,
        targets::forms::TARGET,
        targets::http::TARGET,
    ] {
        let seeds = (target.seeds)();
        assert!(seeds.len() >= 5, "{}: too few seeds", target.name);
        // Unmeasured first: what is built once per process is no input's cost.
        for seed in &seeds {
            (target.run)(seed);
        }
        for seed in &seeds {
            mcp_fuzz::harness::run(&target, seed);
        }
    }
}
