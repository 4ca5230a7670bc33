// The engine's bounds (src-tauri/teams/src/types.rs), in characters (code points).
export const MAX_RULES_CHARS = 4_000;
export const MAX_ABOUT_YOU_CHARS = 4_000;
export const MAX_BRIEF_CHARS = 8_000;
export const MAX_TEAM_NAME_CHARS = 80;
