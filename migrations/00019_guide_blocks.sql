-- +goose Up
-- A low-zoom map summed every non-empty tile row in its range: a zoom-5
-- vector tile read ~148k rows of guide_tiles at 1 M guides, and more tiles
-- fill as guides grow. A block is 8 × 8 tiles (0.08°, the cluster cell of
-- zoom 10): each zoom up to 10 has cells of whole blocks, so their clusters
-- add up block rows, whose number is bounded by the map's area, not by the
-- guides. A block is named by its south-west tile (tile row and column
-- rounded down to a multiple of 8), so the reads that sum tile rows sum
-- block rows by the same expressions. The columns mean what guide_tiles'
-- do (no version: a tile's version already covers its guides); the same
-- trigger keeps them exact in the writing transaction.
LOCK TABLE guide_tiles IN SHARE MODE; -- no write slips between the backfill and the trigger

-- +goose StatementBegin
CREATE FUNCTION guide_tile_block(tile bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (tile / 40000 / 8 * 8) * 40000 + tile % 40000 / 8 * 8
$$;
-- +goose StatementEnd

-- The 64 tiles of the blocks.
-- +goose StatementBegin
CREATE FUNCTION guide_block_tiles(blocks bigint[]) RETURNS SETOF bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT b + r * 40000 + c FROM unnest(blocks) b, generate_series(0, 7) r, generate_series(0, 7) c
$$;
-- +goose StatementEnd

CREATE TABLE guide_blocks (
    tile       bigint PRIMARY KEY,
    guides     integer NOT NULL,
    sum_lat_e7 bigint NOT NULL,
    sum_lng_e7 bigint NOT NULL,
    min_lat    float8,
    min_lng    float8,
    max_lat    float8,
    max_lng    float8,
    newest     uuid
);

CREATE TABLE guide_block_tags (
    tag        text    NOT NULL,
    tile       bigint  NOT NULL,
    guides     integer NOT NULL,
    sum_lat_e7 bigint  NOT NULL,
    sum_lng_e7 bigint  NOT NULL,
    min_lat    float8  NOT NULL,
    min_lng    float8  NOT NULL,
    max_lat    float8  NOT NULL,
    max_lng    float8  NOT NULL,
    newest     uuid    NOT NULL,
    PRIMARY KEY (tag, tile)
);

-- From the tile rows, not the guides: a 10 M database migrates in the
-- time of reading its ~10^5–10^6 tile rows.
INSERT INTO guide_blocks (tile, guides, sum_lat_e7, sum_lng_e7, min_lat, min_lng, max_lat, max_lng, newest)
SELECT guide_tile_block(tile), sum(guides), sum(sum_lat_e7), sum(sum_lng_e7),
       min(min_lat), min(min_lng), max(max_lat), max(max_lng), max(newest::text)::uuid
FROM guide_tiles GROUP BY 1;

INSERT INTO guide_block_tags (tag, tile, guides, sum_lat_e7, sum_lng_e7, min_lat, min_lng, max_lat, max_lng, newest)
SELECT tag, guide_tile_block(tile), sum(guides), sum(sum_lat_e7), sum(sum_lng_e7),
       min(min_lat), min(min_lng), max(max_lat), max(max_lng), max(newest::text)::uuid
FROM guide_tile_tags GROUP BY 1, 2;

-- The planner's statistics now, not at autovacuum's leisure: the first
-- maps after the migration read these tables.
ANALYZE guide_blocks, guide_block_tags;

-- New guides add to their blocks as to their tiles: counts and sums
-- added, bounds widened, the newest kept, in one upsert per table that
-- locks the block rows in order (concurrent writers never deadlock).
-- +goose StatementBegin
CREATE FUNCTION guide_blocks_grow(guides guide_tile_point[]) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO guide_blocks AS t (tile, guides, sum_lat_e7, sum_lng_e7, min_lat, min_lng, max_lat, max_lng, newest)
    SELECT guide_tile_block(g.tile), count(*), sum(round(g.lat * 1e7))::bigint, sum(round(g.lng * 1e7))::bigint,
           min(g.lat), min(g.lng), max(g.lat), max(g.lng), (array_agg(g.id ORDER BY g.id DESC))[1]
    FROM unnest(guides) AS g
    GROUP BY 1
    ORDER BY 1
    ON CONFLICT (tile) DO UPDATE
        SET guides = t.guides + excluded.guides,
            sum_lat_e7 = t.sum_lat_e7 + excluded.sum_lat_e7, sum_lng_e7 = t.sum_lng_e7 + excluded.sum_lng_e7,
            min_lat = least(t.min_lat, excluded.min_lat), min_lng = least(t.min_lng, excluded.min_lng),
            max_lat = greatest(t.max_lat, excluded.max_lat), max_lng = greatest(t.max_lng, excluded.max_lng),
            newest = greatest(t.newest, excluded.newest);
    INSERT INTO guide_block_tags AS t (tag, tile, guides, sum_lat_e7, sum_lng_e7, min_lat, min_lng, max_lat, max_lng, newest)
    SELECT x.tag, guide_tile_block(g.tile), count(*), sum(round(g.lat * 1e7))::bigint, sum(round(g.lng * 1e7))::bigint,
           min(g.lat), min(g.lng), max(g.lat), max(g.lng), (array_agg(g.id ORDER BY g.id DESC))[1]
    FROM unnest(guides) AS g, unnest(g.tags) AS x(tag)
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (tag, tile) DO UPDATE
        SET guides = t.guides + excluded.guides,
            sum_lat_e7 = t.sum_lat_e7 + excluded.sum_lat_e7, sum_lng_e7 = t.sum_lng_e7 + excluded.sum_lng_e7,
            min_lat = least(t.min_lat, excluded.min_lat), min_lng = least(t.min_lng, excluded.min_lng),
            max_lat = greatest(t.max_lat, excluded.max_lat), max_lng = greatest(t.max_lng, excluded.max_lng),
            newest = greatest(t.newest, excluded.newest);
$$;
-- +goose StatementEnd

-- Guides that left tiles (deleted, moved, retagged, hidden): their blocks
-- are summed again from their 64 tile rows, which guide_tiles_refresh has
-- just made exact. The first statement locks the block rows (in order);
-- the next ones take a fresh snapshot, so they see every writer that held
-- a block before, and a writer after adds to or sums again what this one
-- left.
-- +goose StatementBegin
CREATE FUNCTION guide_blocks_refresh(tiles bigint[]) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO guide_blocks AS t (tile, guides, sum_lat_e7, sum_lng_e7)
    SELECT DISTINCT guide_tile_block(u), 0, 0, 0 FROM unnest(tiles) u ORDER BY 1
    ON CONFLICT (tile) DO UPDATE SET guides = t.guides;
    UPDATE guide_blocks t
    SET guides = s.guides, sum_lat_e7 = s.sum_lat_e7, sum_lng_e7 = s.sum_lng_e7,
        min_lat = s.min_lat, min_lng = s.min_lng, max_lat = s.max_lat, max_lng = s.max_lng, newest = s.newest
    FROM (
        SELECT guide_tile_block(g.tile) AS tile, coalesce(sum(g.guides), 0) AS guides,
               coalesce(sum(g.sum_lat_e7), 0) AS sum_lat_e7, coalesce(sum(g.sum_lng_e7), 0) AS sum_lng_e7,
               min(g.min_lat) AS min_lat, min(g.min_lng) AS min_lng, max(g.max_lat) AS max_lat, max(g.max_lng) AS max_lng,
               max(g.newest::text)::uuid AS newest
        FROM guide_tiles g
        WHERE g.tile IN (SELECT guide_block_tiles(ARRAY(SELECT DISTINCT guide_tile_block(u) FROM unnest(tiles) u)))
        GROUP BY 1
    ) s
    WHERE t.tile = s.tile;
    DELETE FROM guide_block_tags WHERE tile IN (SELECT guide_tile_block(u) FROM unnest(tiles) u);
    INSERT INTO guide_block_tags (tag, tile, guides, sum_lat_e7, sum_lng_e7, min_lat, min_lng, max_lat, max_lng, newest)
    SELECT tag, guide_tile_block(tile), sum(guides), sum(sum_lat_e7), sum(sum_lng_e7),
           min(min_lat), min(min_lng), max(max_lat), max(max_lng), max(newest::text)::uuid
    FROM guide_tile_tags
    WHERE tile IN (SELECT guide_block_tiles(ARRAY(SELECT DISTINCT guide_tile_block(u) FROM unnest(tiles) u)))
    GROUP BY 1, 2;
$$;
-- +goose StatementEnd

-- guide_tiles_bump as before, and the blocks after the tiles.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION guide_tiles_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed integer;
    payload text;
    left_tiles bigint[];
    grown guide_tile_point[];
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        UPDATE guide_tiles SET version = version + 1, guides = 0, sum_lat_e7 = 0, sum_lng_e7 = 0,
            min_lat = NULL, min_lng = NULL, max_lat = NULL, max_lng = NULL, newest = NULL;
        DELETE FROM guide_tile_tags;
        UPDATE guide_blocks SET guides = 0, sum_lat_e7 = 0, sum_lng_e7 = 0,
            min_lat = NULL, min_lng = NULL, max_lat = NULL, max_lng = NULL, newest = NULL;
        DELETE FROM guide_block_tags;
        PERFORM pg_notify('guide_tiles', '*');
        RETURN NULL;
    END IF;
    -- Each branch reads only the transition tables its trigger has.
    IF TG_OP = 'INSERT' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_shown(location, hidden_at, 1) FROM new_rows));
        -- The new guides' points, built once for their tiles and their blocks.
        grown := ARRAY(SELECT ROW(id, guide_tile(location), ST_Y(location::geometry),
            ST_X(location::geometry), tags)::guide_tile_point FROM new_rows WHERE hidden_at IS NULL);
        PERFORM guide_tiles_grow(grown);
        PERFORM guide_blocks_grow(grown);
    ELSIF TG_OP = 'DELETE' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_shown(location, hidden_at, -1) FROM old_rows));
        left_tiles := ARRAY(SELECT DISTINCT guide_tile(location) FROM old_rows);
        PERFORM guide_tiles_refresh(left_tiles);
        PERFORM guide_blocks_refresh(left_tiles);
    ELSE
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_shown(location, hidden_at, -1) FROM old_rows
                                     UNION ALL SELECT guide_tile_shown(location, hidden_at, 1) FROM new_rows));
        -- Only guides whose place, tags or visibility changed touch the
        -- rows (an edit of the text, or a new cover, leaves them as they are).
        left_tiles := ARRAY(
            SELECT guide_tile(o.location) FROM old_rows o JOIN new_rows n USING (id)
            WHERE (ST_Y(o.location::geometry), ST_X(o.location::geometry), o.tags, o.hidden_at IS NULL)
                  IS DISTINCT FROM (ST_Y(n.location::geometry), ST_X(n.location::geometry), n.tags, n.hidden_at IS NULL)
            UNION
            SELECT guide_tile(n.location) FROM old_rows o JOIN new_rows n USING (id)
            WHERE (ST_Y(o.location::geometry), ST_X(o.location::geometry), o.tags, o.hidden_at IS NULL)
                  IS DISTINCT FROM (ST_Y(n.location::geometry), ST_X(n.location::geometry), n.tags, n.hidden_at IS NULL));
        PERFORM guide_tiles_refresh(left_tiles);
        IF cardinality(left_tiles) > 0 THEN
            PERFORM guide_blocks_refresh(left_tiles);
        END IF;
    END IF;
    IF changed > 0 THEN
        PERFORM guide_tiles_notify(payload);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION guide_tiles_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed integer;
    payload text;
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        UPDATE guide_tiles SET version = version + 1, guides = 0, sum_lat_e7 = 0, sum_lng_e7 = 0,
            min_lat = NULL, min_lng = NULL, max_lat = NULL, max_lng = NULL, newest = NULL;
        DELETE FROM guide_tile_tags;
        PERFORM pg_notify('guide_tiles', '*');
        RETURN NULL;
    END IF;
    -- Each branch reads only the transition tables its trigger has.
    IF TG_OP = 'INSERT' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_shown(location, hidden_at, 1) FROM new_rows));
        PERFORM guide_tiles_grow(ARRAY(SELECT ROW(id, guide_tile(location), ST_Y(location::geometry),
            ST_X(location::geometry), tags)::guide_tile_point FROM new_rows WHERE hidden_at IS NULL));
    ELSIF TG_OP = 'DELETE' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_shown(location, hidden_at, -1) FROM old_rows));
        PERFORM guide_tiles_refresh(ARRAY(SELECT DISTINCT guide_tile(location) FROM old_rows));
    ELSE
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_shown(location, hidden_at, -1) FROM old_rows
                                     UNION ALL SELECT guide_tile_shown(location, hidden_at, 1) FROM new_rows));
        -- Only guides whose place, tags or visibility changed touch the
        -- rows (an edit of the text, or a new cover, leaves them as they are).
        PERFORM guide_tiles_refresh(ARRAY(
            SELECT guide_tile(o.location) FROM old_rows o JOIN new_rows n USING (id)
            WHERE (ST_Y(o.location::geometry), ST_X(o.location::geometry), o.tags, o.hidden_at IS NULL)
                  IS DISTINCT FROM (ST_Y(n.location::geometry), ST_X(n.location::geometry), n.tags, n.hidden_at IS NULL)
            UNION
            SELECT guide_tile(n.location) FROM old_rows o JOIN new_rows n USING (id)
            WHERE (ST_Y(o.location::geometry), ST_X(o.location::geometry), o.tags, o.hidden_at IS NULL)
                  IS DISTINCT FROM (ST_Y(n.location::geometry), ST_X(n.location::geometry), n.tags, n.hidden_at IS NULL)));
    END IF;
    IF changed > 0 THEN
        PERFORM guide_tiles_notify(payload);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP FUNCTION guide_blocks_refresh(bigint[]);
DROP FUNCTION guide_blocks_grow(guide_tile_point[]);
DROP TABLE guide_block_tags;
DROP TABLE guide_blocks;
DROP FUNCTION guide_block_tiles(bigint[]);
DROP FUNCTION guide_tile_block(bigint);
