-- A cancel asked for from another process (`reprint cancel ID`, the GUI's Run screen): the
-- staging process hears it (NOTIFY reprint_cancel, '<backfill id>') and cancels its own
-- statements. The request is kept in the audit, with who asked.
ALTER TABLE reprint.audit DROP CONSTRAINT audit_action_check;
ALTER TABLE reprint.audit ADD CONSTRAINT audit_action_check
    CHECK (action IN ('publish', 'undo', 'abandon', 'run', 'cancel'));
