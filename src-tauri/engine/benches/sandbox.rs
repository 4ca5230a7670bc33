//! What the OS sandbox adds to a run's start (Linux): the time from spawn to the exit of
//! `/bin/true`, started plainly, in a sandbox with no network (a card's check command), and in
//! a sandbox as a runtime gets it (two of Clawboo's loopback ports bridged in, plus the proxy:
//! bubblewrap held while the clawboo-netns helper makes the three listeners inside). Medians of
//! 40 runs each, after 3 warm-up runs.
//!
//! `scripts/bench --bench sandbox` (or `cargo bench -p clawboo-engine --bench sandbox`). As a
//! normal user, as on a user's desktop (this machine runs as root, which the kernel lets into
//! namespaces more freely):
//! `setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=/tmp CLAWBOO_NETNS_HELPER=… <bench binary>`.

use std::time::{Duration, Instant};

use clawboo_engine::runtimes::process::{CommandSpec, Spawner, SystemSpawner};
use clawboo_engine::runtimes::sandbox::{folder_view, Confinement, NetworkAccess};

const RUNS: usize = 40;

fn spec(folder: &std::path::Path, confine: Option<Confinement>) -> CommandSpec {
    CommandSpec {
        program: "/bin/true".into(),
        inherit_env: vec!["PATH".into()],
        cwd: folder.to_owned(),
        confine,
        ..Default::default()
    }
}

async fn start_to_exit(spec: &CommandSpec) -> Duration {
    let started = Instant::now();
    let mut child = SystemSpawner.spawn(spec).expect("spawn");
    let exit = child.control.wait().await.expect("wait");
    assert!(exit.success(), "{exit:?}");
    started.elapsed()
}

async fn median(spec: &CommandSpec) -> Duration {
    for _ in 0..3 {
        start_to_exit(spec).await;
    }
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        times.push(start_to_exit(spec).await);
    }
    times.sort();
    times[RUNS / 2]
}

fn main() {
    if !cfg!(target_os = "linux") {
        println!("sandbox bench: Linux only");
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().canonicalize().unwrap();
        let relay = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let bridge = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut runtime_view = folder_view(&folder, NetworkAccess::ClawbooOnly);
        runtime_view.loopback_ports = vec![relay.local_addr().unwrap().port(), bridge.local_addr().unwrap().port()];

        let plain = median(&spec(&folder, None)).await;
        let no_net = median(&spec(&folder, Some(folder_view(&folder, NetworkAccess::ClawbooOnly)))).await;
        let bridged = median(&spec(&folder, Some(runtime_view))).await;
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!("sandbox start, spawn → exit of /bin/true, median of {RUNS}:");
        println!("  unconfined                                  {:>7.2} ms", ms(plain));
        println!(
            "  sandbox, no network (check command)         {:>7.2} ms  (+{:.2} ms, {:.1}x)",
            ms(no_net),
            ms(no_net) - ms(plain),
            ms(no_net) / ms(plain)
        );
        println!(
            "  sandbox, relay + bridge + proxy (a runtime) {:>7.2} ms  (+{:.2} ms, {:.1}x)",
            ms(bridged),
            ms(bridged) - ms(plain),
            ms(bridged) / ms(plain)
        );
    });
}
