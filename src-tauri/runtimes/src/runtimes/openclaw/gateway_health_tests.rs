//! The link's backoff and its lost/ping logic against a WebSocket server in the test that speaks
//! the Gateway's opening (challenge, `connect` → `hello-ok`) and can stop answering or go away.

use super::*;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::net::TcpListener;

fn fast() -> Timing {
    Timing {
        ping_every: Duration::from_millis(100),
        lost_after: Duration::from_millis(300),
        first_retry: Duration::from_millis(100),
        max_retry: Duration::from_millis(400),
        connect_within: Duration::from_secs(2),
    }
}

#[test]
fn backoff_doubles_from_one_second_to_a_minute_and_jitter_stays_within_a_fifth() {
    let timing = Timing::default();
    let waits: Vec<u64> = (0..9).map(|n| timing.backoff(n).as_secs()).collect();
    assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
    assert_eq!(timing.backoff(u32::MAX), Duration::from_secs(60), "no overflow however long it is down");
    assert_eq!(with_jitter(Duration::from_secs(10), 0.0), Duration::from_secs(8));
    assert_eq!(with_jitter(Duration::from_secs(10), 0.5), Duration::from_secs(10));
    assert!(with_jitter(Duration::from_secs(10), 0.999_999) <= Duration::from_secs(12));
    for _ in 0..100 {
        let unit = random_unit();
        assert!((0.0..1.0).contains(&unit), "{unit}");
    }
}

/// What the fake Gateway does with each connection after `hello-ok`.
#[derive(Clone, Default)]
struct FakeGateway {
    /// Holds connections without reading them: pings go unanswered.
    deaf: Arc<AtomicBool>,
    /// Answers `connect` with an error.
    refuse: Arc<AtomicBool>,
    tokens: Arc<Mutex<Vec<String>>>,
}

impl FakeGateway {
    async fn serve(self, listener: TcpListener) {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let gateway = self.clone();
            tokio::spawn(async move {
                let Ok(mut socket) = tokio_tungstenite::accept_async(stream).await else { return };
                let challenge =
                    json!({ "type": "event", "event": "connect.challenge", "payload": { "nonce": "n", "ts": 1 } });
                let _ = socket.send(Message::Text(challenge.to_string().into())).await;
                let Some(Ok(Message::Text(text))) = socket.next().await else { return };
                let connect: Value = serde_json::from_str(text.as_str()).unwrap();
                assert_eq!(connect["params"]["role"], "operator");
                assert!(connect["params"].get("device").is_none(), "no device identity: nothing to pair");
                gateway.tokens.lock().unwrap().push(connect["params"]["auth"]["token"].as_str().unwrap().to_owned());
                let answer = if gateway.refuse.load(Ordering::SeqCst) {
                    json!({ "type": "res", "id": "connect", "ok": false, "error": { "message": "unauthorized: gateway token mismatch" } })
                } else {
                    json!({ "type": "res", "id": "connect", "ok": true, "payload": { "type": "hello-ok", "server": { "version": "2026.9.6" } } })
                };
                let _ = socket.send(Message::Text(answer.to_string().into())).await;
                loop {
                    if gateway.deaf.load(Ordering::SeqCst) {
                        // Keeps the socket open and unread: the client's pings wait forever.
                        tokio::time::sleep(Duration::from_secs(3600)).await;
                    }
                    match tokio::time::timeout(Duration::from_millis(20), socket.next()).await {
                        Ok(Some(Ok(_))) | Err(_) => {}
                        Ok(_) => return,
                    }
                }
            });
        }
    }
}

async fn next_state(rx: &mut broadcast::Receiver<GatewayHealth>, state: GatewayLinkState) -> GatewayHealth {
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let health = rx.recv().await.unwrap();
            if health.state == state {
                return health;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the link became {state:?}"))
}

#[tokio::test]
async fn a_link_connects_measures_is_lost_on_an_unanswered_ping_and_comes_back() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let gateway = FakeGateway::default();
    let serving = tokio::spawn(gateway.clone().serve(listener));
    let board = HealthBoard::with_timing(fast());
    let mut changes = board.subscribe();
    let url = format!("ws://127.0.0.1:{port}");
    let target = || LinkTarget { agent_id: "ivy".into(), url: url.clone(), token: "tok-1".into() };
    board.sync(&tokio::runtime::Handle::current(), vec![target()]);

    let connected = next_state(&mut changes, GatewayLinkState::Connected).await;
    assert_eq!(connected.version.as_deref(), Some("2026.9.6"));
    assert!(connected.latency_ms.is_some());
    assert_eq!(gateway.tokens.lock().unwrap().as_slice(), ["tok-1"]);
    assert!(!format!("{connected:?}").contains("tok-1"), "never a token in the health");
    // A few pings answered: still connected, nothing lost.
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert_eq!(board.health("ivy").unwrap().state, GatewayLinkState::Connected);

    // The Gateway stops answering (a hung machine, a dead network): lost after `lost_after`.
    gateway.deaf.store(true, Ordering::SeqCst);
    let lost = next_state(&mut changes, GatewayLinkState::Lost).await;
    assert!(lost.last_error.as_deref().unwrap().contains("no answer to a ping"), "{lost:?}");
    assert!(lost.retry_at.is_some());
    let message = lost_message(&lost, false);
    assert!(message.contains("is lost (no answer to a ping") && message.contains("tries again in"), "{message}");

    // It answers again: the link reconnects by itself.
    gateway.deaf.store(false, Ordering::SeqCst);
    next_state(&mut changes, GatewayLinkState::Connected).await;

    serving.abort();
    board.stop_all();
    assert!(board.health("ivy").is_none());
}

#[tokio::test]
async fn a_closed_connection_is_lost_at_once_and_retried_with_backoff_until_the_gateway_is_back() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // A Gateway that closes each connection right after hello-ok.
    let closing = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let Ok(mut socket) = tokio_tungstenite::accept_async(stream).await else { continue };
            let challenge =
                json!({ "type": "event", "event": "connect.challenge", "payload": { "nonce": "n", "ts": 1 } });
            let _ = socket.send(Message::Text(challenge.to_string().into())).await;
            let _ = socket.next().await;
            let hello = json!({ "type": "res", "id": "connect", "ok": true, "payload": { "server": { "version": "2026.9.6" } } });
            let _ = socket.send(Message::Text(hello.to_string().into())).await;
            tokio::time::sleep(Duration::from_millis(150)).await;
            let _ = socket.close(None).await;
            return;
        }
    });
    let board = HealthBoard::with_timing(fast());
    let mut changes = board.subscribe();
    let url = format!("ws://{addr}");
    board.sync(
        &tokio::runtime::Handle::current(),
        vec![LinkTarget { agent_id: "ivy".into(), url: url.clone(), token: "t".into() }],
    );
    next_state(&mut changes, GatewayLinkState::Connected).await;
    let clock = Instant::now();
    let lost = next_state(&mut changes, GatewayLinkState::Lost).await;
    assert!(clock.elapsed() < fast().lost_after, "a close is lost at once: {:?}", clock.elapsed());
    assert!(lost.last_error.as_deref().unwrap().contains("closed"), "{lost:?}");
    closing.await.unwrap();
    // Nothing listens now (the listener is gone): each retry is refused and waits longer, up to
    // the cap; the state stays lost with the same `since`.
    let mut waits = Vec::new();
    for _ in 0..4 {
        let again = next_state(&mut changes, GatewayLinkState::Lost).await;
        assert_eq!(again.since, lost.since, "still the same loss");
        waits.push(again.retry_at.unwrap() - crate::vocab::now_ms());
    }
    assert!(waits[3] <= 480 && waits[3] >= 300, "capped at max_retry, with jitter: {waits:?}");

    // The Gateway is back on the same address: the link reconnects.
    // (SO_REUSEADDR: the closed connection's port may still be in TIME_WAIT.)
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_reuseaddr(true).unwrap();
    socket.bind(addr).unwrap();
    tokio::spawn(FakeGateway::default().serve(socket.listen(16).unwrap()));
    let back = next_state(&mut changes, GatewayLinkState::Connected).await;
    assert_eq!(back.version.as_deref(), Some("2026.9.6"));
    assert_eq!(back.retry_at, None);
}

#[tokio::test]
async fn sync_starts_stops_and_restarts_links_on_a_changed_address_or_token() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let gateway = FakeGateway::default();
    tokio::spawn(gateway.clone().serve(listener));
    let board = HealthBoard::with_timing(fast());
    let mut changes = board.subscribe();
    let handle = tokio::runtime::Handle::current();
    let url = format!("ws://127.0.0.1:{port}");
    let target = |token: &str| LinkTarget { agent_id: "ivy".into(), url: url.clone(), token: token.into() };
    board.sync(&handle, vec![target("a")]);
    next_state(&mut changes, GatewayLinkState::Connected).await;
    board.sync(&handle, vec![target("a")]);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(gateway.tokens.lock().unwrap().len(), 1, "the same target keeps its link");
    board.sync(&handle, vec![target("b")]);
    // The old link's pings also say "connected" (with their latency): wait for the new link's
    // hello rather than for the next such change.
    tokio::time::timeout(Duration::from_secs(5), async {
        while gateway.tokens.lock().unwrap().len() < 2 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("a new token connects again");
    assert_eq!(gateway.tokens.lock().unwrap().as_slice(), ["a", "b"], "a new token connects again, once");
    board.sync(&handle, Vec::new());
    assert!(board.all().is_empty(), "no agent uses it: stopped");
}

#[tokio::test]
async fn a_refused_connection_is_lost_with_the_gateways_words() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let gateway = FakeGateway::default();
    gateway.refuse.store(true, Ordering::SeqCst);
    tokio::spawn(gateway.serve(listener));
    let board = HealthBoard::with_timing(fast());
    let mut changes = board.subscribe();
    board.sync(
        &tokio::runtime::Handle::current(),
        vec![LinkTarget { agent_id: "ivy".into(), url: format!("ws://127.0.0.1:{port}"), token: "wrong".into() }],
    );
    let lost = next_state(&mut changes, GatewayLinkState::Lost).await;
    assert!(lost.last_error.as_deref().unwrap().contains("token mismatch"), "{lost:?}");
}

#[tokio::test]
async fn a_run_is_stopped_when_its_gateway_is_lost_or_the_user_stops_it_and_not_otherwise() {
    let health = |state| GatewayHealth {
        agent_id: "ivy".into(),
        url: "ws://h:1".into(),
        state,
        latency_ms: None,
        version: None,
        since: 0,
        last_error: Some("the connection closed".into()),
        retry_at: None,
    };
    // The Gateway lost mid-run.
    let (_user, cancel) = watch::channel(false);
    let (link, watched) = watch::channel(health(GatewayLinkState::Connected));
    let (mut stop, cut) = stop_when_lost(cancel, Some(watched));
    link.send_replace(health(GatewayLinkState::Connected));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!*stop.borrow() && cut.lost().is_none(), "a latency change stops nothing");
    link.send_replace(health(GatewayLinkState::Lost));
    tokio::time::timeout(Duration::from_secs(2), stop.wait_for(|s| *s)).await.unwrap().unwrap();
    let lost = cut.lost().unwrap();
    assert!(lost_message(&lost, true).contains("was lost (the connection closed), so this run was cut off"));

    // The user's Stop, with no link to watch: a Stop, not a loss.
    let (user, cancel) = watch::channel(false);
    let (mut stop, cut) = stop_when_lost(cancel, None);
    user.send_replace(true);
    tokio::time::timeout(Duration::from_secs(2), stop.wait_for(|s| *s)).await.unwrap().unwrap();
    assert!(cut.lost().is_none());

    // The link stopped (the agent moved to another Gateway): the run goes on.
    let (_user, cancel) = watch::channel(false);
    let (link, watched) = watch::channel(health(GatewayLinkState::Connected));
    let (stop, cut) = stop_when_lost(cancel, Some(watched));
    drop(link);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!*stop.borrow() && cut.lost().is_none());
}

#[tokio::test]
async fn an_address_nobody_listens_on_is_said_in_plain_words() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let why = connect(&format!("ws://127.0.0.1:{port}"), "t", Duration::from_secs(2)).await.err().unwrap();
    assert_eq!(why, "nothing answers at that address (connection refused)");
}
