//! The real OS keyring. Without a D-Bus session it must fail with advice; inside one (scripts/test-all
//! runs this under dbus-run-session with an unlocked gnome-keyring) it must store and read back.

use psebench::secrets::{KeyringStore, SecretStore};

#[test]
fn without_a_session_bus_the_keyring_error_suggests_an_env_var() {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return; // a desktop session: covered by the round-trip test instead
    }
    let err = KeyringStore.get("model:psebench-test").unwrap_err();
    assert!(err.to_string().contains("--api-key-env"), "{err}");
}

#[test]
#[ignore = "needs an unlocked keyring in a D-Bus session; scripts/test-all runs it under dbus-run-session"]
fn os_keyring_round_trip() {
    let account = format!("test:{}", uuid::Uuid::new_v4());
    let s = KeyringStore;
    s.set(&account, "sk-test-roundtrip-123").unwrap();
    assert_eq!(s.get(&account).unwrap().as_deref(), Some("sk-test-roundtrip-123"));
    s.delete(&account).unwrap();
    assert_eq!(s.get(&account).unwrap(), None);
}
