-- A cascade backfill is one root backfill (the model asked for) and one child per
-- downstream model, staged and validated together and published in one transaction.
ALTER TABLE reprint.backfills ADD COLUMN parent_id bigint REFERENCES reprint.backfills (id) ON DELETE CASCADE;
CREATE INDEX backfills_parent_idx ON reprint.backfills (parent_id) WHERE parent_id IS NOT NULL;
