-- What the calendar shows of a model's partitions (rows, measures, checks, loads, who
-- claims or published them) changes when a backfill or a scheduled run is recorded or
-- changes status (staging, staged, failed, published, undone, abandoned), and when a
-- claim is taken, released, handed over, cancelled or held for publish. Each such change
-- is announced on the channel `reprint_partitions`, whoever made it (this process, another
-- reprint-review, the CLI), with the model and the window it touches:
--   {"model": "fct_order_lines", "start": 1773014400, "end": 1773532800}
-- (seconds since the epoch; end exclusive). The claim's heartbeat and per-partition
-- progress are not announced here: reprint_progress carries those.

CREATE FUNCTION reprint.announce_partitions() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    lo timestamptz;
    hi timestamptz;
    m text;
BEGIN
    IF TG_TABLE_NAME = 'backfills' THEN
        m := NEW.model;
        lo := NEW.window_start;
        hi := NEW.window_end;
    ELSIF TG_OP = 'DELETE' THEN
        m := OLD.model;
        lo := lower(OLD.span);
        hi := upper(OLD.span);
    ELSE
        m := NEW.model;
        lo := lower(NEW.span);
        hi := upper(NEW.span);
    END IF;
    PERFORM pg_notify('reprint_partitions',
                      json_build_object('model', m, 'start', floor(extract(epoch FROM lo))::bigint,
                                        'end', ceil(extract(epoch FROM hi))::bigint)::text);
    RETURN NULL;
END
$$;

CREATE TRIGGER backfills_announce_partitions AFTER INSERT ON reprint.backfills
    FOR EACH ROW EXECUTE FUNCTION reprint.announce_partitions();
CREATE TRIGGER backfills_announce_partitions_status AFTER UPDATE ON reprint.backfills
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.validation IS DISTINCT FROM NEW.validation)
    EXECUTE FUNCTION reprint.announce_partitions();
CREATE TRIGGER claims_announce_partitions AFTER INSERT OR DELETE ON reprint.claims
    FOR EACH ROW EXECUTE FUNCTION reprint.announce_partitions();
-- Not the heartbeat (it moves heartbeat_at and the lease forward): a new holder or span,
-- a lease cut short (a cancel), or held until publish ('infinity').
CREATE TRIGGER claims_announce_partitions_change AFTER UPDATE ON reprint.claims
    FOR EACH ROW WHEN (OLD.holder IS DISTINCT FROM NEW.holder OR OLD.span IS DISTINCT FROM NEW.span
                       OR NEW.lease_expires < OLD.lease_expires
                       OR (NEW.lease_expires = 'infinity') IS DISTINCT FROM (OLD.lease_expires = 'infinity'))
    EXECUTE FUNCTION reprint.announce_partitions();
