//! The tray: how many requests need the user (icon with a badge, tooltip, the newest few in its
//! menu, each opening the app at it), a native notification when one arrives, and the way back
//! to the window. What it says and when (one notification per burst, none for the chat the user
//! is looking at) is the engine's (`clawboo_engine::attention::tray`); this only draws it.

use std::sync::{Arc, Mutex};

use clawboo_engine::attention::{tray as rules, Arrival, AttentionRequest, Notice, Notifier, TrayState, Viewing};
use clawboo_engine::{Engine, EngineEvent};
use tauri::image::Image;
use tauri::menu::{IsMenuItem, Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::{TrayIcon, TrayIconBuilder};
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_notification::NotificationExt;
use tauri_specta::Event;

use crate::events::OpenAttention;

const TRAY_ID: &str = "clawboo";
const OPEN: &str = "open";
const INBOX: &str = "inbox";
const QUIT: &str = "quit";
/// Menu ids of requests: this prefix and the request id.
const REQUEST_PREFIX: &str = "request:";

/// The tray's state in the app: the engine's notifier (what the window shows, the burst).
#[derive(Default)]
pub struct TrayWatch {
    inner: Mutex<Notifier>,
}

impl TrayWatch {
    pub fn set_viewing(&self, viewing: Option<Viewing>) {
        self.lock().set_viewing(viewing);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Notifier> {
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Makes the tray icon, on the main thread, once the first screen is interactive (it is no part
/// of that screen, and making it holds the main thread the page's first commands are answered
/// on; see `startup::AfterFirstScreen`). Drawn at once from the engine's requests when the engine
/// is already open; an engine that opens later draws it itself (`watch`), finding the icon made.
pub fn create<R: Runtime>(app: &AppHandle<R>) {
    // No tray host (a bare X server, some desktops) is not a reason to stop the app.
    if let Err(e) = build(app) {
        tracing::warn!(error = %e, "no tray icon");
        return;
    }
    if let Some(engine) = app.try_state::<crate::AppState>().and_then(|s| s.engine_if_open()) {
        let _ = refresh(app, &engine);
    }
}

fn build<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<TrayIcon<R>> {
    let empty = TrayState::empty();
    let mut tray = TrayIconBuilder::with_id(TRAY_ID)
        .tooltip(&empty.tooltip)
        .menu(&menu(app, &empty)?)
        .on_menu_event(|app, event| on_menu(app, event.id.as_ref()));
    if let Some(icon) = app.default_window_icon() {
        tray = tray.icon(icon.clone());
    }
    tray.build(app)
}

/// Keeps the tray in step with the engine's requests, and notifies of new ones.
pub fn watch<R: Runtime>(app: &AppHandle<R>, engine: Arc<Engine>) {
    let _ = refresh(app, &engine);
    let mut events = engine.events().subscribe();
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        loop {
            match events.recv().await {
                Ok(EngineEvent::AttentionChanged { raised }) => {
                    let _ = refresh(&app, &engine);
                    if let Some(id) = raised {
                        arrived(&app, &engine, &id);
                    }
                }
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    let _ = refresh(&app, &engine);
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    });
}

/// Sets the tray's icon, tooltip and menu from the open requests.
fn refresh<R: Runtime>(app: &AppHandle<R>, engine: &Engine) -> tauri::Result<()> {
    let Ok(state) = engine.attention().tray_state() else { return Ok(()) };
    let Some(tray) = app.tray_by_id(TRAY_ID) else { return Ok(()) };
    tray.set_tooltip(Some(&state.tooltip))?;
    tray.set_menu(Some(menu(app, &state)?))?;
    if let Some(icon) = app.default_window_icon() {
        let icon = if state.open > 0 { with_badge(icon) } else { icon.clone().to_owned() };
        tray.set_icon(Some(icon))?;
    }
    Ok(())
}

fn menu<R: Runtime>(app: &AppHandle<R>, state: &TrayState) -> tauri::Result<Menu<R>> {
    let mut items: Vec<Box<dyn IsMenuItem<R>>> =
        vec![Box::new(MenuItem::with_id(app, "heading", state.heading(), false, None::<&str>)?)];
    for item in &state.newest {
        let id = format!("{REQUEST_PREFIX}{}", item.request_id);
        items.push(Box::new(MenuItem::with_id(app, id, &item.label, true, None::<&str>)?));
    }
    if state.open > 0 {
        items.push(Box::new(MenuItem::with_id(app, INBOX, "Open the inbox", true, None::<&str>)?));
    }
    items.push(Box::new(PredefinedMenuItem::separator(app)?));
    items.push(Box::new(MenuItem::with_id(app, OPEN, "Open Clawboo", true, None::<&str>)?));
    items.push(Box::new(MenuItem::with_id(app, QUIT, "Quit Clawboo", true, None::<&str>)?));
    let refs: Vec<&dyn IsMenuItem<R>> = items.iter().map(|i| i.as_ref()).collect();
    Menu::with_items(app, &refs)
}

fn on_menu<R: Runtime>(app: &AppHandle<R>, id: &str) {
    match id {
        OPEN => show_main_window(app),
        INBOX => open_at(app, None),
        // Quit stops every run first (the app's Exit event shuts the engine down).
        QUIT => app.exit(0),
        other => {
            if let Some(request_id) = other.strip_prefix(REQUEST_PREFIX) {
                open_at(app, Some(request_id.to_owned()));
            }
        }
    }
}

/// Shows the window at the inbox (at `request_id` when given).
fn open_at<R: Runtime>(app: &AppHandle<R>, request_id: Option<String>) {
    show_main_window(app);
    let _ = OpenAttention { request_id }.emit(app);
}

/// A new open request: what the engine's rules say (a notification now, one summary when the
/// burst is over, or nothing when the user is looking at where it came from).
fn arrived<R: Runtime>(app: &AppHandle<R>, engine: &Arc<Engine>, id: &str) {
    let Ok(request) = engine.attention().get(id) else { return };
    let Some(watch) = app.try_state::<TrayWatch>() else { return };
    let focused = app.get_webview_window("main").and_then(|w| w.is_focused().ok()).unwrap_or(false);
    let now = clawboo_engine::chat::now_ms();
    let arrival = watch.lock().arrived(&request, focused, now);
    match arrival {
        Arrival::Seen | Arrival::Held { flush_at: None } => {}
        Arrival::Notify(notice) => notify(app, engine, &notice, Some(&request)),
        Arrival::Held { flush_at: Some(due) } => {
            let (app, engine) = (app.clone(), engine.clone());
            tauri::async_runtime::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis((due - now).max(0) as u64)).await;
                flush(&app, &engine);
            });
        }
    }
}

fn flush<R: Runtime>(app: &AppHandle<R>, engine: &Arc<Engine>) {
    let Some(watch) = app.try_state::<TrayWatch>() else { return };
    let notice = watch.lock().flush(clawboo_engine::chat::now_ms());
    if let Some(notice) = notice {
        notify(app, engine, &notice, None);
    }
}

fn notify<R: Runtime>(app: &AppHandle<R>, engine: &Engine, notice: &Notice, request: Option<&AttentionRequest>) {
    let open = engine.attention().tray_state().map(|s| s.open).unwrap_or(0);
    let shown = rules::notification(notice, request, open);
    // No notification service (a bare X server, some desktops) is not an error worth more
    // than a line: the tray and the inbox still show the request.
    if let Err(e) = app.notification().builder().title(shown.title).body(shown.body).show() {
        tracing::info!(error = %e, "no notification shown");
    }
}

pub fn show_main_window<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// The icon with a red badge in its top-right corner: "something needs you".
fn with_badge(icon: &Image<'_>) -> Image<'static> {
    let (width, height) = (icon.width(), icon.height());
    let mut rgba = icon.rgba().to_vec();
    let radius = (width.min(height) as f32) * 0.22;
    let (cx, cy) = (width as f32 - radius - 1.0, radius + 1.0);
    for y in 0..height {
        for x in 0..width {
            let d = ((x as f32 + 0.5 - cx).powi(2) + (y as f32 + 0.5 - cy).powi(2)).sqrt();
            let pixel = match d {
                d if d <= radius - 1.5 => [229, 72, 77, 255],
                d if d <= radius => [255, 255, 255, 255],
                _ => continue,
            };
            let at = ((y * width + x) * 4) as usize;
            rgba[at..at + 4].copy_from_slice(&pixel);
        }
    }
    Image::new_owned(rgba, width, height)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_badge_is_red_in_the_top_right_and_leaves_the_rest() {
        let icon = Image::new_owned(vec![10; 32 * 32 * 4], 32, 32);
        let badged = with_badge(&icon);
        let px = |x: u32, y: u32| badged.rgba()[((y * 32 + x) * 4) as usize..][..4].to_vec();
        let r = (32.0 * 0.22) as u32;
        assert_eq!(px(32 - r - 1, r + 1), vec![229, 72, 77, 255], "the badge's centre");
        assert_eq!(px(2, 30), vec![10, 10, 10, 10], "the rest of the icon");
    }
}
