-- An agent routine may report to a team the agent is a member of: its cards are then the team's
-- (their results go to the team's leader, and runs work in the team's project folder). A team
-- deleted leaves the routine reporting to no one.
ALTER TABLE routines ADD COLUMN reports_to_team_id TEXT REFERENCES teams (id) ON DELETE SET NULL;
