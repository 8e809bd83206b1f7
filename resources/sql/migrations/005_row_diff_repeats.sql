-- Rows whose key repeats on one side of a boundary partition's row diff (old: the target,
-- new: the stage). The diff pairs repeated keys in order instead of fanning them out; the
-- counts say how many rows beyond the first of each key there were.
ALTER TABLE reprint.row_diffs ADD COLUMN old_repeats bigint NOT NULL DEFAULT 0;
ALTER TABLE reprint.row_diffs ADD COLUMN new_repeats bigint NOT NULL DEFAULT 0;
