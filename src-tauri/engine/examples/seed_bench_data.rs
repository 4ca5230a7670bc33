//! Seeds a data directory for scripts/bench's app-level figures: three Native agents in a team
//! ("Shop", with rules and a room), and a fourth agent ("Huge") whose chat holds 10,000 messages.
//! `cargo run -p clawboo-engine --example seed_bench_data --release -- DATA_DIR [EXCHANGES]`

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::secrets::Provider;
use clawboo_engine::teams::{NewRoom, NewTeam};
use clawboo_engine::{Engine, EngineConfig};

fn agent(name: &str, handle: &str) -> NewAgent {
    NewAgent {
        name: name.into(),
        handle: handle.into(),
        description: format!("The team's {handle}."),
        tint: "#336699".into(),
        runtime: RuntimeKind::Native,
        model: "some-model".into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider: Some(Provider::Custom),
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: seed_bench_data DATA_DIR [EXCHANGES]");
    let exchanges: u32 = args.next().map_or(5_000, |n| n.parse().expect("EXCHANGES is a number"));
    let config = EngineConfig::for_dir(dir.clone().into());
    let db = config.database_path();
    let engine = Engine::open(config).expect("open the engine");
    let members: Vec<String> = [("Lead", "lead"), ("Scout", "scout"), ("Writer", "writer")]
        .iter()
        .map(|(name, handle)| engine.agents().create(agent(name, handle)).expect("agent").id)
        .collect();
    let team = engine
        .teams()
        .create(NewTeam { name: "Shop".into(), member_ids: members.clone(), leader_id: Some(members[0].clone()) })
        .expect("team");
    for rule in ["Answer in English.", "Keep replies under 200 words."] {
        engine.teams().add_rule(&team.id, rule).expect("rule");
    }
    engine
        .teams()
        .create_room(
            &team.id,
            NewRoom { name: "Planning".into(), member_ids: members.clone(), leader_id: Some(members[0].clone()) },
        )
        .expect("room");
    let huge = engine.agents().create(agent("Huge", "huge")).expect("agent").id;
    engine.shutdown();
    drop(engine);
    clawboo_testkit::seed_chat(&db, &huge, exchanges);
    println!("seeded {dir}: team Shop (3 agents), @huge with {} messages", exchanges * 2);
}
