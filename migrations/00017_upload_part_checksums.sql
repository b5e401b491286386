-- +goose Up
-- Each part's SHA-256 (hex, in part order) as the client declared it, or
-- NULL when it declared none. The part URLs sign these, so the S3 server
-- refuses a part cut off or altered on the way; listing and completing
-- compare them with what the server holds.
ALTER TABLE uploads ADD COLUMN part_sha256 text[],
    ADD CONSTRAINT uploads_part_sha256_count
        CHECK (part_sha256 IS NULL OR cardinality(part_sha256) = (bytes + part_size - 1) / part_size);

-- +goose Down
ALTER TABLE uploads DROP COLUMN part_sha256;
