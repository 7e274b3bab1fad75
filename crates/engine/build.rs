// The built-in policy packs, card library, prompts and schemas are embedded at compile time;
// rebuild the engine whenever any of them changes.
fn main() {
    for dir in ["../../policies", "../../library", "../../prompts", "../../schemas", "../../assets"] {
        println!("cargo:rerun-if-changed={dir}");
    }
    println!("cargo:rerun-if-changed=migrations");
}
