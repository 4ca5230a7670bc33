-- Each agent's OS sandbox: on unless the user turns it off for that agent (it then shows an
-- "unconfined" badge), and where it may connect besides Clawboo (clawboo_only, hosts, any),
-- with the host list as a JSON array.
ALTER TABLE agents ADD COLUMN sandbox_confined INTEGER NOT NULL DEFAULT 1;
ALTER TABLE agents ADD COLUMN sandbox_network TEXT NOT NULL DEFAULT 'clawboo_only';
ALTER TABLE agents ADD COLUMN sandbox_hosts TEXT NOT NULL DEFAULT '[]';
