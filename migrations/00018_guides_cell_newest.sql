-- +goose NO TRANSACTION
-- +goose Up
-- The viewport reads "the newest guides in a rectangle". Neither the
-- planar GiST (finds the rectangle, then sorts all of it) nor the primary
-- key (walks every guide, newest first, until enough fall inside) does
-- work in proportion to the answer: in a dense city at 1 M guides the
-- second walked ~3,800 heap rows for 100. Cutting the map into 0.02°
-- cells (2 × 2 tiles of guide_tile) and keeping each cell's guides in id
-- order lets the query merge the cells a rectangle covers, newest first,
-- and stop after the answer: each cell's index scan is ordered already.
-- location is carried in the index, so the rectangle's edge test runs on
-- index entries without visiting the table; hidden guides are never shown
-- on a map, so they are left out of it.
CREATE OR REPLACE FUNCTION guide_cell(loc geography) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
    SELECT (floor(ST_Y(loc::geometry) * 50)::bigint + 4500) * 20000
         + (floor(ST_X(loc::geometry) * 50)::bigint + 9000)
$$;

-- CONCURRENTLY: a database already holding millions of guides keeps
-- taking writes while this builds.
CREATE INDEX CONCURRENTLY IF NOT EXISTS guides_cell_newest_idx
    ON guides (guide_cell(location), id) INCLUDE (location) WHERE hidden_at IS NULL;

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS guides_cell_newest_idx;
DROP FUNCTION IF EXISTS guide_cell(geography);
