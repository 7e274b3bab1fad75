//! How WebKitGTK is started on Linux: the environment variables the app sets for it before its
//! window exists, each only when the user has not set it. WebKitGTK reads them itself (in the
//! app's process and in the web process it starts), so they are the app's only say in how WebKit
//! draws. Measured in BENCHMARKS.md ("Desktop app").
//!
//! - `WEBKIT_DISABLE_COMPOSITING_MODE=1`: no GPU compositing. It buys nothing for a page of
//!   tables, text and SVG charts, and without a GPU it is emulated in software: with it off the
//!   web process needs about 40 % less memory and the Results page renders faster (round two).
//! - `JSC_useJIT=0`: the page's scripts spend their time waiting for the engine, so JavaScriptCore's
//!   just-in-time compilers buy no visible speed, while their code, profiling data and threads
//!   cost about 17 MB with Results open (round three).
//! - Without compositing nothing in the app's own process draws with OpenGL, yet three probes
//!   there start OpenGL's drivers all the same: GTK's check for GLX visuals when it opens the
//!   display, WebKit's look for the graphics card's render node to hand to its web process, and
//!   WebKit's check for its DMA-BUF renderer. Without a graphics card the driver is Mesa's software
//!   renderer, which loads LLVM: 20 MB of the app's memory, loaded before the web process starts
//!   (round seven). So, while compositing is off:
//!   - `GDK_GL=disable` skips GTK's check;
//!   - `WEBKIT_WEB_RENDER_DEVICE_FILE` names the render node WebKit would otherwise look for: the
//!     first one in `/dev/dri`, as WebKit's own fallback picks it, or `/dev/null` on a computer
//!     without one (where WebKit's look finds none either, and the web process then uses none);
//!   - `WEBKIT_DISABLE_DMABUF_RENDERER=1` skips the renderer's check. The renderer carries
//!     composited frames from the web process to the window, and there are none.
//!
//! - `LD_PRELOAD` names one library of WebKit's own, flite's `cmu_time_awb` voice, for WebKit's
//!   processes. Each of WebKit's processes loads about 170 libraries, and at start the dynamic
//!   loader resolves some 73,000 references to symbols, looking each up library by library in
//!   load order. 31,000 of them are that voice's references to its own 31,000 symbols, and it
//!   comes about 80th in the order; named in `LD_PRELOAD` it comes first, which halves the
//!   loader's lookups (round eight). Only a library already loaded in the app's own process is
//!   named, so it exists and WebKit loads it anyway; its symbols' names are its own, so no
//!   other library's symbol is found in its place.
//!
//! A user who turns compositing back on (`WEBKIT_DISABLE_COMPOSITING_MODE=0`, or
//! `WEBKIT_FORCE_COMPOSITING_MODE`, or `WEBKIT_FORCE_DMABUF_RENDERER`) gets WebKit's own choices
//! for the three OpenGL variables; the other defaults stay.

/// A variable to set, and its value.
pub type Setting = (&'static str, String);

/// The library whose own symbols are most of the dynamic loader's lookups in WebKit's processes.
const MOST_LOOKED_UP: &str = "libflite_cmu_time_awb.so";

/// What to set, given the environment as it is (`get` reads a variable), the DRM render nodes of
/// this computer ([`render_nodes`]) and the libraries loaded in the app's process
/// ([`loaded_libraries`]). Variables the user set are never in the list.
pub fn linux_defaults(
    get: &dyn Fn(&str) -> Option<String>,
    render_nodes: &[String],
    loaded: &[String],
) -> Vec<Setting> {
    let mut out: Vec<Setting> = Vec::new();
    let mut default = |name: &'static str, value: String| {
        if get(name).is_none() {
            out.push((name, value));
        }
    };
    default("WEBKIT_DISABLE_COMPOSITING_MODE", "1".to_string());
    default("JSC_useJIT", "0".to_string());
    // WebKit 2.50 reads compositing as disabled for any value but "0" (checked: with "0" its web
    // process runs its compositor threads). The forcing switches count as set whatever their
    // value, as older WebKit versions read them.
    let compositing_off = get("WEBKIT_DISABLE_COMPOSITING_MODE").is_none_or(|v| v != "0");
    let forced_on =
        ["WEBKIT_FORCE_COMPOSITING_MODE", "WEBKIT_FORCE_DMABUF_RENDERER"].iter().any(|name| get(name).is_some());
    if compositing_off && !forced_on {
        default("GDK_GL", "disable".to_string());
        let node = render_nodes.first().cloned().unwrap_or_else(|| "/dev/null".to_string());
        default("WEBKIT_WEB_RENDER_DEVICE_FILE", node);
        default("WEBKIT_DISABLE_DMABUF_RENDERER", "1".to_string());
    }
    let voice = loaded.iter().find(|path| path.rsplit('/').next().is_some_and(|name| name.starts_with(MOST_LOOKED_UP)));
    if let Some(path) = voice {
        default("LD_PRELOAD", path.clone());
    }
    out
}

/// The files of the shared libraries loaded in this process (from `/proc/self/maps`), each once.
pub fn loaded_libraries() -> Vec<String> {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return Vec::new();
    };
    let mut found: Vec<String> = maps
        .lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .filter(|path| path.starts_with('/') && path.contains(".so"))
        .map(str::to_string)
        .collect();
    found.sort();
    found.dedup();
    found
}

/// The DRM render nodes in `dir` (`/dev/dri` on Linux), lowest number first: `renderD128`, … A
/// folder that cannot be read has none.
pub fn render_nodes(dir: &std::path::Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(u32, String)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let number = name.strip_prefix("renderD")?.parse::<u32>().ok()?;
            Some((number, entry.path().display().to_string()))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, path)| path).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn defaults(set: &[(&str, &str)], nodes: &[&str]) -> HashMap<&'static str, String> {
        let env: HashMap<String, String> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let nodes: Vec<String> = nodes.iter().map(|n| n.to_string()).collect();
        linux_defaults(&|name| env.get(name).cloned(), &nodes, &[]).into_iter().collect()
    }

    #[test]
    fn a_plain_environment_gets_every_default() {
        let d = defaults(&[], &[]);
        assert_eq!(d["WEBKIT_DISABLE_COMPOSITING_MODE"], "1");
        assert_eq!(d["JSC_useJIT"], "0");
        assert_eq!(d["GDK_GL"], "disable");
        assert_eq!(d["WEBKIT_WEB_RENDER_DEVICE_FILE"], "/dev/null");
        assert_eq!(d["WEBKIT_DISABLE_DMABUF_RENDERER"], "1");
        assert_eq!(d.len(), 5);
    }

    #[test]
    fn the_first_render_node_is_named_when_there_is_one() {
        let d = defaults(&[], &["/dev/dri/renderD128", "/dev/dri/renderD129"]);
        assert_eq!(d["WEBKIT_WEB_RENDER_DEVICE_FILE"], "/dev/dri/renderD128");
    }

    #[test]
    fn values_the_user_set_are_kept() {
        let d = defaults(
            &[("JSC_useJIT", "1"), ("GDK_GL", "gles"), ("WEBKIT_WEB_RENDER_DEVICE_FILE", "/dev/dri/renderD129")],
            &[],
        );
        assert!(!d.contains_key("JSC_useJIT"));
        assert!(!d.contains_key("GDK_GL"));
        assert!(!d.contains_key("WEBKIT_WEB_RENDER_DEVICE_FILE"));
        assert_eq!(d["WEBKIT_DISABLE_DMABUF_RENDERER"], "1");
    }

    #[test]
    fn compositing_turned_back_on_leaves_opengl_to_webkit() {
        for on in [
            &[("WEBKIT_DISABLE_COMPOSITING_MODE", "0")][..],
            &[("WEBKIT_FORCE_COMPOSITING_MODE", "1")][..],
            &[("WEBKIT_FORCE_DMABUF_RENDERER", "1")][..],
        ] {
            let d = defaults(on, &["/dev/dri/renderD128"]);
            for name in ["GDK_GL", "WEBKIT_WEB_RENDER_DEVICE_FILE", "WEBKIT_DISABLE_DMABUF_RENDERER"] {
                assert!(!d.contains_key(name), "{name} set although {on:?}");
            }
            assert_eq!(d["JSC_useJIT"], "0");
        }
        // Compositing disabled by the user (any value but "0", as WebKit reads it) counts as off.
        for off in ["yes", ""] {
            let d = defaults(&[("WEBKIT_DISABLE_COMPOSITING_MODE", off)], &[]);
            assert_eq!(d["GDK_GL"], "disable", "WEBKIT_DISABLE_COMPOSITING_MODE={off:?}");
        }
        // A forcing switch the user set at all leaves OpenGL to WebKit, whatever its value.
        let d = defaults(&[("WEBKIT_FORCE_COMPOSITING_MODE", "0")], &[]);
        assert!(!d.contains_key("GDK_GL"));
    }

    #[test]
    fn the_voice_library_is_preloaded_only_when_webkit_loaded_it() {
        let loaded =
            ["/usr/lib/x86_64-linux-gnu/libflite_cmu_time_awb.so.1.0".to_string(), "/usr/lib/libc.so.6".to_string()];
        let d: HashMap<_, _> = linux_defaults(&|_| None, &[], &loaded).into_iter().collect();
        assert_eq!(d["LD_PRELOAD"], "/usr/lib/x86_64-linux-gnu/libflite_cmu_time_awb.so.1.0");
        let without: HashMap<_, _> = linux_defaults(&|_| None, &[], &loaded[1..]).into_iter().collect();
        assert!(!without.contains_key("LD_PRELOAD"));
        let theirs = |name: &str| (name == "LD_PRELOAD").then(|| "/opt/mine.so".to_string());
        let kept: HashMap<_, _> = linux_defaults(&theirs, &[], &loaded).into_iter().collect();
        assert!(!kept.contains_key("LD_PRELOAD"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_lists_its_libraries() {
        let loaded = loaded_libraries();
        assert!(loaded.iter().any(|p| p.contains("libc.so")), "{loaded:?}");
        assert!(loaded.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn render_nodes_are_found_in_numeric_order() {
        let dir = std::env::temp_dir().join(format!("psebench-dri-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["card0", "renderD129", "renderD128", "renderDx", "by-path"] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let nodes = render_nodes(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        let names: Vec<&str> = nodes.iter().map(|p| p.rsplit('/').next().unwrap_or("")).collect();
        assert_eq!(names, ["renderD128", "renderD129"]);
        assert!(render_nodes(std::path::Path::new("/nonexistent/dri")).is_empty());
    }
}
