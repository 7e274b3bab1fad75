// The schemas and the chart fonts are embedded at compile time; rebuild the engine whenever any of
// them changes. (The policy packs, card library, prompts and migrations are embedded by
// psebench-core, whose own build script watches them.)
fn main() {
    for dir in ["../../schemas", "../../assets"] {
        println!("cargo:rerun-if-changed={dir}");
    }
}
