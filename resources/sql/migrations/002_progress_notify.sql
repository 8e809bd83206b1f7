-- Every change to a backfill or one of its partitions is announced on the channel
-- `reprint_progress` (payload: the backfill id), whoever made it: this process, another
-- reprint-review, or `reprint backfill` in a terminal. Watchers LISTEN and re-read.

CREATE FUNCTION reprint.announce_progress() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'backfills' THEN
        PERFORM pg_notify('reprint_progress', NEW.id::text);
    ELSE
        PERFORM pg_notify('reprint_progress', NEW.backfill_id::text);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER backfills_announce AFTER INSERT OR UPDATE ON reprint.backfills
    FOR EACH ROW EXECUTE FUNCTION reprint.announce_progress();
CREATE TRIGGER backfill_partitions_announce AFTER INSERT OR UPDATE ON reprint.backfill_partitions
    FOR EACH ROW EXECUTE FUNCTION reprint.announce_progress();
CREATE TRIGGER claims_announce AFTER INSERT OR UPDATE ON reprint.claims
    FOR EACH ROW EXECUTE FUNCTION reprint.announce_progress();
