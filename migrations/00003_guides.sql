-- Guides: the grid the nearby/viewport cache is built on, per-tile versions
-- bumped in the writing transaction, sharded like counters, and the
-- indexes the viewport and tile queries use.

-- +goose Up

-- guide_tile numbers the 0.01° grid cell (a "tile", ~1.1 km × 0.9 km in
-- Korea) that holds a location: row = floor(lat*100)+9000, column =
-- floor(lng*100)+18000, tile = row*40000 + column. cache/grid.go computes the
-- same number with the same float64 arithmetic (IEEE multiply, then floor),
-- so Go and SQL always agree on which tile a guide is in.
-- +goose StatementBegin
CREATE FUNCTION guide_tile(loc geography) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (floor(ST_Y(loc::geometry) * 100)::bigint + 9000) * 40000
         + (floor(ST_X(loc::geometry) * 100)::bigint + 18000)
$$;
-- +goose StatementEnd

-- Exact tile membership for cache loads (WHERE guide_tile(location) = ANY(…)).
CREATE INDEX guides_tile_idx ON guides (guide_tile(location));
-- Planar lat/lng rectangles for viewports and fine clusters: a geography
-- "box" has great-circle edges, a map viewport does not.
CREATE INDEX guides_geom_idx ON guides USING gist ((location::geometry));

-- One row per tile that has ever held a guide. version only grows: it is
-- bumped by the statement that creates, moves, edits or deletes a guide in
-- the tile, in the same transaction, and every API process hears of it
-- through NOTIFY guide_tiles after the commit. guides and the coordinate
-- sums (in 1e-7 degrees, integers so that they never drift) feed the
-- low-zoom clusters.
CREATE TABLE guide_tiles (
    tile       bigint PRIMARY KEY,
    version    bigint NOT NULL,
    guides     integer NOT NULL,
    sum_lat_e7 bigint NOT NULL,
    sum_lng_e7 bigint NOT NULL
);

-- Like counters split in shards: a like increments one of 16 rows chosen at
-- random, so a hot guide's likes do not queue on one row lock. The exact
-- count is guides.like_count (a base, 0 unless folded in) plus the sum of
-- the shards.
-- updated_at lets every API process poll, once a second, the counts of the
-- guides liked or unliked lately, so lists show likes within about a second
-- without re-reading whole tiles.
CREATE TABLE guide_like_shards (
    guide_id   uuid        NOT NULL REFERENCES guides (id) ON DELETE CASCADE,
    shard      smallint    NOT NULL,
    n          bigint      NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (guide_id, shard)
);
CREATE INDEX guide_like_shards_updated_idx ON guide_like_shards (updated_at);

-- A guide's contribution to its tile: +1 guide and its coordinates when it
-- arrives, -1 and minus them when it leaves (a move is both).
CREATE TYPE guide_tile_delta AS (tile bigint, n integer, lat bigint, lng bigint);

-- +goose StatementBegin
CREATE FUNCTION guide_tile_delta_of(loc geography, sign integer) RETURNS guide_tile_delta
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ROW(guide_tile(loc), sign,
               sign * round(ST_Y(loc::geometry) * 1e7)::bigint,
               sign * round(ST_X(loc::geometry) * 1e7)::bigint)::guide_tile_delta
$$;
-- +goose StatementEnd

-- guide_tiles_apply adds the deltas to their tiles, bumping each touched
-- tile's version once, and returns how many tiles changed and the
-- 'tile:version:guides,…' list to notify. Tiles are locked in tile order so
-- concurrent writers never deadlock.
-- +goose StatementBegin
CREATE FUNCTION guide_tiles_apply(deltas guide_tile_delta[], OUT changed integer, OUT payload text)
LANGUAGE sql AS $$
    WITH d AS (
        SELECT tile, sum(n)::integer AS n, sum(lat)::bigint AS lat, sum(lng)::bigint AS lng
        FROM unnest(deltas) GROUP BY tile
    ), up AS (
        INSERT INTO guide_tiles AS t (tile, version, guides, sum_lat_e7, sum_lng_e7)
        SELECT tile, 1, n, lat, lng FROM d ORDER BY tile
        ON CONFLICT (tile) DO UPDATE
            SET version = t.version + 1,
                guides = t.guides + excluded.guides,
                sum_lat_e7 = t.sum_lat_e7 + excluded.sum_lat_e7,
                sum_lng_e7 = t.sum_lng_e7 + excluded.sum_lng_e7
        RETURNING t.tile, t.version, t.guides
    )
    SELECT count(*)::integer, string_agg(tile::text || ':' || version::text || ':' || guides::text, ',') FROM up
$$;
-- +goose StatementEnd

-- guide_tiles_bump keeps guide_tiles in step with every statement that
-- writes guides, and notifies 'tile:version:guides,…' (or '*').
-- +goose StatementBegin
CREATE FUNCTION guide_tiles_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed integer;
    payload text;
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        UPDATE guide_tiles SET version = version + 1, guides = 0, sum_lat_e7 = 0, sum_lng_e7 = 0;
        PERFORM pg_notify('guide_tiles', '*');
        RETURN NULL;
    END IF;
    -- Each branch reads only the transition tables its trigger has.
    IF TG_OP = 'INSERT' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, 1) FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, -1) FROM old_rows));
    ELSE
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, -1) FROM old_rows
                                     UNION ALL SELECT guide_tile_delta_of(location, 1) FROM new_rows));
    END IF;
    IF changed > 0 THEN
        -- A NOTIFY payload must stay under 8000 bytes; "*" tells listeners
        -- to reload every version (a bulk load).
        IF length(payload) > 7000 THEN
            payload := '*';
        END IF;
        PERFORM pg_notify('guide_tiles', payload);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER guides_tiles_insert AFTER INSERT ON guides
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION guide_tiles_bump();
CREATE TRIGGER guides_tiles_update AFTER UPDATE ON guides
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION guide_tiles_bump();
CREATE TRIGGER guides_tiles_delete AFTER DELETE ON guides
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION guide_tiles_bump();
CREATE TRIGGER guides_tiles_truncate AFTER TRUNCATE ON guides
    FOR EACH STATEMENT EXECUTE FUNCTION guide_tiles_bump();

-- A photo that becomes ready (or fails) changes the cover that lists show
-- for the guides it opens: touch those guides, so their tiles' versions
-- are bumped like any other edit.
-- +goose StatementBegin
CREATE FUNCTION guide_cover_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE guides SET updated_at = updated_at
    WHERE id IN (SELECT guide_id FROM guide_media WHERE media_id = NEW.id AND position = 0);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER media_guide_cover AFTER UPDATE OF status, thumbhash ON media
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.thumbhash IS DISTINCT FROM NEW.thumbhash)
    EXECUTE FUNCTION guide_cover_changed();

-- Guides that existed before this migration.
INSERT INTO guide_tiles (tile, version, guides, sum_lat_e7, sum_lng_e7)
SELECT guide_tile(location), 1, count(*),
       sum(round(ST_Y(location::geometry) * 1e7))::bigint, sum(round(ST_X(location::geometry) * 1e7))::bigint
FROM guides GROUP BY 1;

-- +goose Down
DROP TRIGGER media_guide_cover ON media;
DROP FUNCTION guide_cover_changed();
DROP TRIGGER guides_tiles_truncate ON guides;
DROP TRIGGER guides_tiles_delete ON guides;
DROP TRIGGER guides_tiles_update ON guides;
DROP TRIGGER guides_tiles_insert ON guides;
DROP FUNCTION guide_tiles_bump();
DROP FUNCTION guide_tiles_apply(guide_tile_delta[]);
DROP FUNCTION guide_tile_delta_of(geography, integer);
DROP TYPE guide_tile_delta;
DROP TABLE guide_like_shards;
DROP TABLE guide_tiles;
DROP INDEX guides_geom_idx;
DROP INDEX guides_tile_idx;
DROP FUNCTION guide_tile(geography);
