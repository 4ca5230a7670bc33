//! The sandbox's network helper (see the clawboo-netns crate): run by the engine, never by hand.

#[cfg(target_os = "linux")]
fn main() {
    clawboo_netns::main()
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("clawboo-netns runs on Linux only");
    std::process::exit(2);
}
