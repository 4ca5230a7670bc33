//! `ui/src/bindings.ts` is generated from the commands and events registered in
//! `specta_builder()`. This test fails when the committed file differs from what the code
//! generates. Regenerate with `scripts/bindings` (sets CLAWBOO_UPDATE_BINDINGS=1).

use std::path::PathBuf;

use specta_typescript::Typescript;

#[test]
fn committed_bindings_match_the_code() {
    let committed_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings.ts");
    let generated_dir = tempfile::tempdir().unwrap();
    let generated_path = generated_dir.path().join("bindings.ts");
    clawboo_lib::specta_builder::<tauri::test::MockRuntime>()
        .export(
            Typescript::default().header("// Generated from the Rust commands by scripts/bindings. Do not edit.\n"),
            &generated_path,
        )
        .expect("export bindings");
    let generated = std::fs::read_to_string(&generated_path).unwrap();

    if std::env::var_os("CLAWBOO_UPDATE_BINDINGS").is_some() {
        std::fs::write(&committed_path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    assert!(
        committed == generated,
        "ui/src/bindings.ts is out of date with the Rust commands: run scripts/bindings and commit the result"
    );
}
