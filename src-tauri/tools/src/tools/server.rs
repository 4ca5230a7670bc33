//! The MCP server on 127.0.0.1: a thin layer resolves the token to its caller before rmcp's
//! streamable HTTP service sees the request (401 for an unknown or ended token), and the
//! handler lists and runs only that caller's tools: Clawboo's own it was granted, then the ones
//! its run hosts (its connectors', each call under the agent's approval policy).
//!
//! Stateless (no `Mcp-Session-Id`) with plain JSON answers: every POST carries its token, so
//! nothing about a caller lives between requests. GET (an SSE stream) is answered 405.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::watch;

use super::{specs, Access, HostedSpec, Shared, ToolName};
use crate::loopback::{self, ServerLimits};

/// Far above any tool call (texts are capped at 16 KiB); a bigger body is refused by rmcp.
const MAX_REQUEST_BYTES: usize = 256 * 1024;

type Body = BoxBody<Bytes, Infallible>;
type Service = StreamableHttpService<Handler, NeverSessionManager>;

pub(super) async fn serve(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    limits: ServerLimits,
    stop: watch::Receiver<bool>,
) {
    let handler = Handler { shared: shared.clone() };
    let mut config = StreamableHttpServerConfig::default();
    config.legacy_session_mode = false;
    config.json_response = true;
    config.sse_keep_alive = None;
    config.max_request_body_bytes = MAX_REQUEST_BYTES;
    let service: Service =
        StreamableHttpService::new(move || Ok(handler.clone()), Arc::new(NeverSessionManager::default()), config);
    loopback::serve("the tools server", listener, limits, stop, move |request| {
        let (shared, service) = (shared.clone(), service.clone());
        async move { respond(&shared, &service, request).await }
    })
    .await;
}

async fn respond(shared: &Shared, service: &Service, mut request: Request<Incoming>) -> Response<Body> {
    let path_token = match path_token(request.uri().path()) {
        Ok(token) => token,
        Err(()) => return refusal(StatusCode::NOT_FOUND, "Clawboo's tools are served at /mcp."),
    };
    let header_token = bearer(request.headers());
    let token = match (path_token, header_token) {
        (Some(path), Some(header)) if path != header => {
            return refusal(StatusCode::UNAUTHORIZED, "The token in the path and in the Authorization header differ.")
        }
        (Some(token), _) | (None, Some(token)) => token.to_owned(),
        (None, None) => return refusal(StatusCode::UNAUTHORIZED, "No token (Authorization: Bearer, or /mcp/<token>)."),
    };
    let Some(access) = shared.resolve(&token) else {
        return refusal(StatusCode::UNAUTHORIZED, "This token is not valid (the run has ended?).");
    };
    request.extensions_mut().insert(access);
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, MAX_REQUEST_BYTES).collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => return refusal(StatusCode::PAYLOAD_TOO_LARGE, "The request body is too large or broke off."),
    };
    shared.note(&parts, &body);
    service.handle(Request::from_parts(parts, Full::new(body))).await
}

/// `/mcp` → no token, `/mcp/<token>` → the token; anything else is no route.
fn path_token(path: &str) -> Result<Option<&str>, ()> {
    match path.strip_prefix("/mcp") {
        Some("" | "/") => Ok(None),
        Some(rest) => match rest.strip_prefix('/') {
            Some(token) if !token.contains('/') => Ok(Some(token)),
            _ => Err(()),
        },
        None => Err(()),
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let auth = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, value) = auth.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then_some(value.trim()).filter(|v| !v.is_empty())
}

fn refusal(status: StatusCode, message: &str) -> Response<Body> {
    let body = serde_json::json!({"error": format!("Clawboo's tools: {message}")}).to_string();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

#[derive(Clone)]
struct Handler {
    shared: Arc<Shared>,
}

/// The caller the auth layer resolved for this request (rmcp carries the http parts along).
fn access(context: &RequestContext<RoleServer>) -> Result<Access, ErrorData> {
    context
        .extensions
        .get::<hyper::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Access>())
        .cloned()
        .ok_or_else(|| ErrorData::internal_error("the request carries no caller", None))
}

fn mcp_tool(tool: ToolName) -> Tool {
    let spec = specs::spec(tool);
    let schema = match spec.input_schema {
        Value::Object(map) => map,
        _ => Default::default(),
    };
    Tool::new(tool.as_str(), spec.description, schema)
}

fn hosted_tool(spec: HostedSpec) -> Tool {
    let schema = match spec.input_schema {
        Value::Object(map) => map,
        _ => Default::default(),
    };
    let mut tool = Tool::new(spec.name, spec.description, schema);
    tool.annotations = spec.annotations;
    tool
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("clawboo", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let access = access(&context)?;
        let mut tools: Vec<Tool> = self.shared.visible_tools(&access).into_iter().map(mcp_tool).collect();
        tools.extend(self.shared.visible_hosted(&access).into_iter().map(hosted_tool));
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let access = access(&context)?;
        let output = match self.shared.caller(&access) {
            Ok(caller) => {
                let args = request.arguments.map_or(Value::Null, Value::Object);
                self.shared.call(&caller, &request.name, args).await.map_err(|m| ErrorData::invalid_params(m, None))?
            }
            Err(message) => super::ToolOutput::error(message),
        };
        let content = vec![ContentBlock::text(output.text)];
        Ok(if output.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) }.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_comes_from_the_path_or_nowhere() {
        assert_eq!(path_token("/mcp"), Ok(None));
        assert_eq!(path_token("/mcp/"), Ok(None));
        assert_eq!(path_token("/mcp/abc"), Ok(Some("abc")));
        assert_eq!(path_token("/mcp/abc/def"), Err(()));
        assert_eq!(path_token("/other"), Err(()));
        assert_eq!(path_token("/mcpx"), Err(()));
    }
}
