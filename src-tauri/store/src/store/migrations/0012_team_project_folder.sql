-- A team's project folder: where runs of the team's cards work when the card names none.
ALTER TABLE teams ADD COLUMN project_folder TEXT;
