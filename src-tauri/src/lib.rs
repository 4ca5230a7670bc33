//! Clawboo's desktop shell: wires engine services to typed commands and engine events to UI
//! events, and owns the window and tray. Logic lives in `clawboo-engine`.

mod commands;
pub mod desktop;
pub mod error;
pub mod events;
pub mod logging;
pub mod resident;
mod startup;
pub mod state;
pub mod tray;

use clawboo_engine::{Engine, EngineConfig};
use tauri::{Manager, Runtime};
use tauri_specta::{collect_commands, collect_events};

pub use state::AppState;

/// The app's version: the workspace's Cargo version, which the installers also carry (tauri.conf.json
/// names none, so Tauri takes Cargo's). Shown in Settings > About and by `clawboo --version`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The one registry of commands and events, used by the app and by the bindings export.
pub fn specta_builder<R: Runtime>() -> tauri_specta::Builder<R> {
    tauri_specta::Builder::<R>::new()
        .commands(collect_commands![
            commands::app::app_info,
            commands::app::report_interactive,
            commands::logs::log_level,
            commands::logs::set_log_level,
            commands::logs::recent_log_lines,
            commands::preferences::window_preferences,
            commands::preferences::set_theme,
            commands::preferences::set_last_place,
            commands::agents::list_agents,
            commands::agents::create_agent,
            commands::agents::update_agent,
            commands::agents::delete_agent,
            commands::agents::list_agent_files,
            commands::agents::read_agent_file,
            commands::agents::write_agent_file,
            commands::agents::get_openclaw_gateway,
            commands::agents::set_openclaw_gateway,
            commands::agents::gateway_healths,
            commands::secrets::list_providers,
            commands::secrets::set_api_key,
            commands::secrets::delete_api_key,
            commands::secrets::set_base_url,
            commands::secrets::provider_models,
            commands::home::home_summary,
            commands::chat::chat_history_page,
            commands::chat::send_chat_message,
            commands::chat::list_chats,
            commands::chat::new_chat,
            commands::chat::rename_chat,
            commands::chat::pin_chat,
            commands::chat::archive_chat,
            commands::chat::delete_chat,
            commands::chat::restore_chat,
            commands::chat::retry_chat_message,
            commands::chat::edit_chat_message,
            commands::chat::mark_thread_read,
            commands::chat::unread_threads,
            commands::chat::cancel_run,
            commands::chat::run_activity,
            commands::chat::chat_run_context,
            commands::chat::agent_file_routes,
            commands::boo_zero::boo_zero,
            commands::boo_zero::set_boo_zero_rules,
            commands::boo_zero::set_global_brief,
            commands::runtimes::list_runtimes,
            commands::runtimes::set_runtime_path,
            commands::runtimes::list_runtime_access,
            commands::runtimes::set_runtime_access,
            commands::runtimes::runtime_info,
            commands::sandbox::sandbox_info,
            commands::onboarding::onboarding_state,
            commands::onboarding::starter_team_proposal,
            commands::onboarding::create_starter_team,
            commands::onboarding::finish_onboarding,
            commands::teams::list_teams,
            commands::teams::get_team,
            commands::teams::create_team,
            commands::teams::rename_team,
            commands::teams::set_team_archived,
            commands::teams::delete_team,
            commands::teams::set_team_members,
            commands::teams::set_team_leader,
            commands::teams::set_member_role,
            commands::teams::add_team_rule,
            commands::teams::remove_team_rule,
            commands::teams::set_team_brief,
            commands::teams::set_about_you,
            commands::teams::set_team_project_folder,
            commands::teams::create_room,
            commands::teams::update_room,
            commands::teams::delete_room,
            commands::team_chat::send_team_message,
            commands::team_chat::stop_team,
            commands::team_chat::room_page,
            commands::team_chat::room_runs,
            commands::team_chat::peer_posts,
            commands::team_chat::run_context,
            commands::team_chat::run_requests,
            commands::history::search_everything,
            commands::history::export_thread,
            commands::history::open_link,
            commands::history::open_path,
            commands::spend::spend_page,
            commands::spend::spend_of,
            commands::spend::runs_spend,
            commands::spend::spend_prices,
            commands::spend::set_spend_price,
            commands::spend::remove_spend_price,
            commands::spend::export_spend_csv,
            commands::memory::memory_list,
            commands::memory::memory_search,
            commands::memory::memory_detail,
            commands::memory::memory_save,
            commands::memory::memory_edit,
            commands::memory::memory_delete,
            commands::memory::memory_restore,
            commands::memory::memory_notes,
            commands::memory::memory_delete_note,
            commands::memory::scratch_list,
            commands::memory::scratch_all,
            commands::memory::scratch_add,
            commands::memory::scratch_edit,
            commands::memory::scratch_delete,
            commands::memory::promotions,
            commands::memory::decide_promotion,
            commands::board::board_list,
            commands::board::board_card,
            commands::board::board_create,
            commands::board::board_edit,
            commands::board::board_move,
            commands::board::board_comment,
            commands::board::board_delete,
            commands::board::board_runs,
            commands::board::board_columns,
            commands::runner::board_run_start,
            commands::runner::board_run_cancel,
            commands::runner::board_run_context,
            commands::runner::board_run_diff,
            commands::runner::runner_traces,
            commands::runner::runner_settings,
            commands::runner::runner_set_settings,
            commands::attention::attention_open,
            commands::attention::attention_history,
            commands::attention::attention_get,
            commands::attention::attention_answer,
            commands::attention::attention_audit,
            commands::attention::attention_grants,
            commands::attention::attention_revoke_grant,
            commands::attention::attention_settings,
            commands::attention::attention_set_settings,
            commands::attention::attention_viewing,
            commands::attention::answer_permission,
            commands::attention::tray_state,
            commands::api::local_api_status,
            commands::api::local_api_set_enabled,
            commands::api::local_api_token,
            commands::api::local_api_regenerate_token,
            commands::routines::routines_list,
            commands::routines::routine_get,
            commands::routines::routine_create,
            commands::routines::routine_update,
            commands::routines::routine_delete,
            commands::routines::routine_pause,
            commands::routines::routine_resume,
            commands::routines::routine_run_now,
            commands::routines::routine_preview,
            commands::routines::routine_presets,
            commands::limits::limits_get,
            commands::limits::limits_set,
            commands::limits::paused_scopes,
            commands::limits::scope_resume,
            commands::limits::budgets_list,
            commands::limits::budget_set,
            commands::limits::budget_remove,
            commands::connectors::list_connectors,
            commands::connectors::suggested_connectors,
            commands::connectors::create_connector,
            commands::connectors::update_connector,
            commands::connectors::delete_connector,
            commands::connectors::set_connector_shares,
            commands::connectors::share_connector,
            commands::connectors::set_connector_secret,
            commands::connectors::clear_connector_secret,
        ])
        .events(collect_events![
            events::AgentsChanged,
            events::TeamsChanged,
            events::AgentFileChanged,
            events::RunEventEmitted,
            events::ChatMessageAdded,
            events::ChatMessagesSuperseded,
            events::ReadMarksChanged,
            events::RunChanged,
            events::RoomMessageAdded,
            events::RoomRunChanged,
            events::PeerPostAdded,
            events::MemoryChanged,
            events::BoardChanged,
            events::AttentionChanged,
            events::ConnectorsChanged,
            events::GatewayHealthChanged,
            events::OpenAttention,
            events::KeptInTray,
            events::RoutinesChanged
        ])
        // Timestamps (ms since the epoch) and file sizes cross IPC as i64/u64; both stay far
        // below 2^53, so a JavaScript number holds them exactly.
        .dangerously_cast_bigints_to_number()
        // One TypeScript type per Rust type: inputs and outputs have the same shape here.
        .disable_serde_phases()
}

/// Makes the engine's state available to commands at once, and opens the engine on a thread of
/// its own (`CLAWBOO_DATA_DIR`, else the OS's app-data folder) while the webview loads its page:
/// the page's first commands wait for it instead of the page waiting behind it. A failure is kept
/// and reported by every command.
pub fn install_engine<R: Runtime>(app: &tauri::AppHandle<R>) {
    let (state, opening) = AppState::opening();
    app.manage(desktop::Desktop(std::sync::Arc::new(app.clone())));
    app.manage(tray::TrayWatch::default());
    app.manage(state);
    let app = app.clone();
    let opener = std::thread::Builder::new().name("clawboo-open".into()).spawn(move || {
        let engine = open_engine(&app);
        startup::milestone("engine ready");
        let opened = engine.as_ref().ok().cloned();
        opening.finish(engine);
        // After the hand-over: the tray is drawn on the main thread, which waits for an opening
        // engine when the app exits; drawing it before would leave each waiting for the other.
        if let Some(engine) = opened {
            tray::watch(&app, engine);
        }
    });
    if let Err(e) = opener {
        tracing::error!(error = %e, "the engine's opening thread did not start");
    }
}

/// Opens the engine and starts forwarding its events to the UI (before any command can reach
/// it, so no change is missed between a first read and the first event).
fn open_engine<R: Runtime>(app: &tauri::AppHandle<R>) -> clawboo_engine::Result<std::sync::Arc<Engine>> {
    let engine = EngineConfig::resolve(app.path().app_data_dir().ok()).and_then(Engine::open);
    let engine = match engine {
        Err(e) => {
            tracing::error!(error = %e, "the engine did not start");
            return Err(e);
        }
        Ok(engine) => std::sync::Arc::new(engine),
    };
    startup::engine_steps(engine.open_steps());
    // The level the user chose, from now on (the start logged at the default).
    if let Some(logging) = logging::installed() {
        logging.apply(engine.log_level().unwrap_or_default());
    }
    events::forward(app.clone(), engine.clone());
    Ok(engine)
}

/// Closing the window while agents work hides it instead: Clawboo keeps running in the tray
/// (the first time, a notification and the UI say so). With nothing running, it closes.
fn keep_in_tray_while_working<R: Runtime>(window: &tauri::Window<R>, api: &tauri::CloseRequestApi) {
    let app = window.app_handle();
    // Still opening: nothing can be running yet.
    let Some(engine) = app.try_state::<AppState>().and_then(|s| s.engine_if_open()) else { return };
    if !engine.has_work() {
        return;
    }
    api.prevent_close();
    let _ = window.hide();
    let first = engine.first_time("kept_in_tray").unwrap_or(false);
    if first {
        use tauri_plugin_notification::NotificationExt;
        let body = "Your agents are still working, so Clawboo keeps running in the tray. Quit it from the tray menu.";
        if let Err(e) = app.notification().builder().title("Clawboo is still running").body(body).show() {
            tracing::info!(error = %e, "no notification shown");
        }
    }
    let _ = tauri_specta::Event::emit(&events::KeptInTray { first }, app);
}

pub fn run() {
    startup::begin();
    let builder = specta_builder::<tauri::Wry>();
    let commands = builder.invoke_handler();
    tauri::Builder::default()
        // First, so a second launch exits before it opens anything; the running one comes to
        // the front instead. (The engine also locks its data folder: see `Engine::open`.)
        .plugin(tauri_plugin_single_instance::init(|app, _argv, _cwd| tray::show_main_window(app)))
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_dialog::init())
        // Right after them: the engine opens while the toolkit starts and the window is made.
        .plugin(startup::open_early(builder))
        .invoke_handler(commands)
        .setup(|app| {
            startup::milestone("main window created");
            startup::show_main_window_later(app.handle());
            Ok(())
        })
        .on_page_load(|webview, payload| match payload.event() {
            tauri::webview::PageLoadEvent::Started => startup::milestone("page load started"),
            tauri::webview::PageLoadEvent::Finished => {
                startup::milestone("page loaded");
                startup::show_main_window_once(&webview.window());
            }
        })
        .on_window_event(|window, event| {
            if let tauri::WindowEvent::CloseRequested { api, .. } = event {
                keep_in_tray_while_working(window, api);
            }
        })
        .build(tauri::generate_context!())
        .expect("error while building Clawboo")
        .run(|app, event| {
            // No runtime process outlives the app: stop every run before the process exits (an
            // engine still opening is waited for, so what it started is stopped too).
            if let tauri::RunEvent::Exit = event {
                if let Some(Ok(engine)) = app.try_state::<AppState>().map(|s| s.engine_blocking()) {
                    engine.shutdown();
                }
            }
        });
}
