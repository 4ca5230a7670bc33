//! A turn's node connection to a Gateway the user runs (see [`super::gateway_node`]): made
//! before the bridge starts, so the turn's agent run lists the tools; paired by Clawboo itself
//! the first time; closed when the turn ends.

use super::device::{key_path, DeviceIdentity};
use super::gateway_node::{self, Hello, LiveSession, NodeConnection, Offer, Refused};
use super::remote_files;
use crate::runtimes::process::{CommandSpec, Spawner};
use crate::tools::ToolGrant;

/// The node connection of one turn; its tools end when it is dropped.
pub struct TurnNode {
    pub hello: Hello,
    _connection: NodeConnection,
    serving: tokio::task::JoinHandle<()>,
}

impl Drop for TurnNode {
    fn drop(&mut self) {
        self.serving.abort();
    }
}

/// Where a turn's node connects and how it approves itself.
pub struct NodePlace<'a> {
    pub url: &'a str,
    pub token: &'a str,
    /// The bridge's state folder, where the node's key lives.
    pub bridge_state: &'a std::path::Path,
    /// The turn's bridge command: its environment runs `openclaw gateway call` as the operator
    /// device the owner approved.
    pub bridge: &'a CommandSpec,
}

/// Connects, pairs when needed and publishes `grant`'s tools, answering calls from `live`'s
/// session only. `Err`: why the turn runs without Clawboo's tools.
pub async fn open(
    spawner: &dyn Spawner,
    place: &NodePlace<'_>,
    grant: &ToolGrant,
    live: LiveSession,
) -> Result<TurnNode, String> {
    let identity = DeviceIdentity::load_or_create(&key_path(place.bridge_state)).map_err(|e| e.to_string())?;
    let operator = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let what = args[..2].join(" ");
        async move { remote_files::operator(spawner, place.bridge, args, &what).await.map_err(|e| e.to_string()) }
    };
    let mut connection = match gateway_node::connect(place.url, place.token, &identity).await {
        // This computer's node device is new to the Gateway: approve it with the operator grant
        // the owner gave the bridge (`openclaw devices approve` asks for the admin scope a new
        // role needs), then connect again.
        Err(Refused::PairingRequired { request_id }) => {
            operator(&["devices", "approve", &request_id, "--json"]).await?;
            gateway_node::connect(place.url, place.token, &identity).await.map_err(|e| e.to_string())?
        }
        other => other.map_err(|e| e.to_string())?,
    };
    let offered = grant.specs.len();
    let mut shown = connection.publish(&grant.specs).await?;
    if shown < offered {
        // The node's command waits for approval (once per Gateway): approve it the same way.
        let listed = operator(&["nodes", "list", "--json"]).await?;
        let request = listed["pending"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["nodeId"] == identity.id.as_str())
            .and_then(|p| p["requestId"].as_str())
            .map(str::to_owned);
        if let Some(request) = request {
            operator(&["nodes", "approve", &request]).await?;
        }
        shown = connection.publish(&grant.specs).await?;
    }
    if shown < offered {
        return Err(format!(
            "the Gateway shows {shown} of the {offered} tools Clawboo offered (its gateway.nodes.commands.deny may \
             refuse {})",
            gateway_node::TOOLS_CALL
        ));
    }
    let offer = Offer { specs: grant.specs.clone(), invoker: grant.invoker.clone() };
    let serving = connection.serve(offer, live);
    Ok(TurnNode { hello: connection.hello.clone(), _connection: connection, serving })
}
