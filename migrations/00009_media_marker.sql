-- +goose Up
-- Whether the photo's square marker image is stored. Photos made ready
-- before markers existed have none: their marker URL is null until the
-- sweeper has queued them and a worker has rendered one.
ALTER TABLE media ADD COLUMN marker boolean NOT NULL DEFAULT false;
CREATE INDEX media_markerless_idx ON media (id) WHERE status = 'ready' AND NOT marker AND deleted_at IS NULL;

-- +goose Down
DROP INDEX media_markerless_idx;
ALTER TABLE media DROP COLUMN marker;
