-- Why a failed backfill failed, as a value rather than a sentence: 'cancelled' (its staging
-- was cancelled: its operator, Ctrl-C or `reprint cancel`; what was staged is kept and a
-- resume finishes it) or 'error' (a partition, a validation or a cascade member failed).
-- `error` keeps the sentence a person reads; nothing parses it.
ALTER TABLE reprint.backfills ADD COLUMN IF NOT EXISTS failure text
    CHECK (failure IN ('error', 'cancelled'));
UPDATE reprint.backfills SET failure = CASE WHEN error LIKE 'cancelled%' THEN 'cancelled' ELSE 'error' END
    WHERE status = 'failed';
