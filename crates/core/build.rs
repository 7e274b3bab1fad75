// The built-in policy packs, card library and prompts are embedded at compile time (`builtin`,
// `prompt`), and so are the store's migrations; rebuild whenever any of them changes.
fn main() {
    for dir in ["../../policies", "../../library", "../../prompts"] {
        println!("cargo:rerun-if-changed={dir}");
    }
    println!("cargo:rerun-if-changed=migrations");
}
