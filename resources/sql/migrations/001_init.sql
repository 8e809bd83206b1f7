-- Reprint's own state, kept in the warehouse so that it is transactional with the data.
-- Applied by `reprint init` in one transaction; recorded in reprint.schema_version.

CREATE SCHEMA IF NOT EXISTS reprint;
CREATE SCHEMA IF NOT EXISTS reprint_staging;  -- one table per backfill and model
CREATE SCHEMA IF NOT EXISTS reprint_archive;  -- rows replaced by a publish, kept for undo

-- btree_gist gives text an equality operator class for the claims' exclusion constraint.
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE reprint.backfills (
    id                 bigserial PRIMARY KEY,
    model              text        NOT NULL,
    target             text        NOT NULL,   -- schema.table when it was recorded
    kind               text        NOT NULL DEFAULT 'backfill' CHECK (kind IN ('backfill', 'run')),
    window_start       timestamptz NOT NULL,
    window_end         timestamptz NOT NULL,   -- exclusive
    from_partition     text        NOT NULL,
    to_partition       text        NOT NULL,
    status             text        NOT NULL DEFAULT 'planned'
                       CHECK (status IN ('planned', 'staging', 'staged', 'failed', 'published', 'undone', 'abandoned')),
    validation         text        CHECK (validation IN ('passed', 'failed')),
    validation_message text,
    operator           text        NOT NULL DEFAULT current_user,
    approver           text,
    note               text,
    override_reason    text,
    transform_hash     text        NOT NULL,
    stage_table        text,                   -- relation name in reprint_staging
    archive_table      text,                   -- relation name in reprint_archive
    error              text,
    created_at         timestamptz NOT NULL DEFAULT now(),
    staged_at          timestamptz,
    validated_at       timestamptz,
    published_at       timestamptz,
    undone_at          timestamptz,
    updated_at         timestamptz NOT NULL DEFAULT now(),
    CHECK (window_end > window_start)
);
CREATE INDEX backfills_model_idx ON reprint.backfills (model, created_at DESC);

-- A claim is a row with a lease. Overlapping claims on one model are impossible: the
-- exclusion constraint, not the client, guarantees it.
CREATE TABLE reprint.claims (
    backfill_id   bigint      PRIMARY KEY REFERENCES reprint.backfills (id) ON DELETE CASCADE,
    model         text        NOT NULL,
    span          tstzrange   NOT NULL,
    holder        text        NOT NULL,          -- host:pid of the process holding the lease
    operator      text        NOT NULL DEFAULT current_user,
    lease_expires timestamptz NOT NULL,
    heartbeat_at  timestamptz NOT NULL DEFAULT now(),
    EXCLUDE USING gist (model WITH =, span WITH &&)
);

-- Per-partition progress of a backfill (or a scheduled run).
CREATE TABLE reprint.backfill_partitions (
    backfill_id     bigint      NOT NULL REFERENCES reprint.backfills (id) ON DELETE CASCADE,
    partition_start timestamptz NOT NULL,
    partition_end   timestamptz NOT NULL,
    partition       text        NOT NULL,
    state           text        NOT NULL DEFAULT 'queued'
                    CHECK (state IN ('queued', 'staging', 'staged', 'validating', 'failed')),
    rows            bigint,
    seconds         double precision,
    error           text,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (backfill_id, partition_start)
);

-- The stored review: old, new and source per partition and measure, with a verdict.
CREATE TABLE reprint.partition_totals (
    backfill_id     bigint      NOT NULL REFERENCES reprint.backfills (id) ON DELETE CASCADE,
    partition_start timestamptz NOT NULL,
    partition       text        NOT NULL,
    in_scope        boolean     NOT NULL,
    boundary        boolean     NOT NULL,
    measure         text        NOT NULL,
    old             numeric,
    new             numeric,
    source          numeric,
    verdict         text        NOT NULL
                    CHECK (verdict IN ('unchanged', 'expected', 'unexpected', 'mismatch_source')),
    PRIMARY KEY (backfill_id, partition_start, measure)
);

-- Each check's value per partition at validation time (the drift guard compares them).
CREATE TABLE reprint.check_values (
    backfill_id     bigint      NOT NULL REFERENCES reprint.backfills (id) ON DELETE CASCADE,
    partition_start timestamptz NOT NULL,
    check_name      text        NOT NULL,
    value           numeric,
    PRIMARY KEY (backfill_id, partition_start, check_name)
);

-- Row-level diff by key of the boundary partitions (and any asked for with diff --rows).
CREATE TABLE reprint.row_diffs (
    backfill_id     bigint      NOT NULL REFERENCES reprint.backfills (id) ON DELETE CASCADE,
    partition_start timestamptz NOT NULL,
    partition       text        NOT NULL,
    added           bigint      NOT NULL,
    removed         bigint      NOT NULL,
    changed         bigint      NOT NULL,
    column_changes  jsonb       NOT NULL,   -- {"column": count}
    sample          jsonb       NOT NULL,   -- [{"key": {...}, "old": {...}, "new": {...}}]
    PRIMARY KEY (backfill_id, partition_start)
);

-- When each partition of a model was last written, and by which backfill or run.
CREATE TABLE reprint.partition_loads (
    model           text        NOT NULL,
    partition_start timestamptz NOT NULL,
    partition_end   timestamptz NOT NULL,
    loaded_at       timestamptz NOT NULL,
    backfill_id     bigint      REFERENCES reprint.backfills (id) ON DELETE SET NULL,
    PRIMARY KEY (model, partition_start)
);

-- Who did what, written in the same transaction as the action.
CREATE TABLE reprint.audit (
    id          bigserial   PRIMARY KEY,
    backfill_id bigint      NOT NULL REFERENCES reprint.backfills (id) ON DELETE CASCADE,
    action      text        NOT NULL CHECK (action IN ('publish', 'undo', 'abandon', 'run')),
    actor       text        NOT NULL DEFAULT current_user,
    note        text,
    override_reason text,
    at          timestamptz NOT NULL DEFAULT now()
);
