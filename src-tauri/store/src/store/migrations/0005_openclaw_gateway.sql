-- An OpenClaw agent's existing Gateway (ws:// or wss://), which Clawboo neither starts nor
-- stops. NULL: Clawboo runs a Gateway of its own. The Gateway's token is in the OS keychain.
ALTER TABLE agents ADD COLUMN openclaw_gateway_url TEXT;
