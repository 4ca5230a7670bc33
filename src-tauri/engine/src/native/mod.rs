//! Clawboo's own agent loop over a model API (Anthropic Messages, OpenAI-compatible Chat Completions).
