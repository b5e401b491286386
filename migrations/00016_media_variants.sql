-- +goose Up
-- The derivatives of a photo in every width and format (a JSON array of
-- kind, format, size, bytes and object key). NULL for photos rendered
-- before variants: they answer with their old JPEGs until the sweeper has
-- queued them and a worker has rendered the rest.
ALTER TABLE media ADD COLUMN variants jsonb;
CREATE INDEX media_unvaried_idx ON media (id) WHERE status = 'ready' AND variants IS NULL AND deleted_at IS NULL;

-- +goose Down
DROP INDEX media_unvaried_idx;
ALTER TABLE media DROP COLUMN variants;
