-- Tile versions reach every API process in notifications of any length.
-- A write that touched tiles past one NOTIFY's 8000 bytes (about 470
-- tiles: an author with guides in that many renaming, an account deleted,
-- a bulk load) used to notify "*", and every listening process then read
-- all of guide_tiles again (148k rows at 1 M guides) while its cache
-- answered from PostgreSQL: one client's rename made the whole fleet
-- re-read the world. Now the payload is cut at item boundaries into
-- notifications of at most 7000 bytes, delivered together after the commit,
-- so a write costs each listener the tiles it touched, not the whole
-- table. Only TRUNCATE still notifies "*".

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION guide_tiles_notify(payload text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    cut integer;
BEGIN
    WHILE length(payload) > 7000 LOOP
        -- the last comma within the first 7001 characters ends a chunk
        cut := 7002 - strpos(reverse(substr(payload, 1, 7001)), ',');
        PERFORM pg_notify('guide_tiles', substr(payload, 1, cut - 1));
        payload := substr(payload, cut + 1);
    END LOOP;
    IF payload <> '' THEN
        PERFORM pg_notify('guide_tiles', payload);
    END IF;
END
$$;
-- +goose StatementEnd

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
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, 1) FROM new_rows));
        PERFORM guide_tiles_grow(ARRAY(SELECT ROW(id, guide_tile(location), ST_Y(location::geometry),
            ST_X(location::geometry), tags)::guide_tile_point FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, -1) FROM old_rows));
        PERFORM guide_tiles_refresh(ARRAY(SELECT DISTINCT guide_tile(location) FROM old_rows));
    ELSE
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, -1) FROM old_rows
                                     UNION ALL SELECT guide_tile_delta_of(location, 1) FROM new_rows));
        -- Only guides whose place or tags changed touch the rows (an edit
        -- of the text, or a new cover, leaves them as they are).
        PERFORM guide_tiles_refresh(ARRAY(
            SELECT guide_tile(o.location) FROM old_rows o JOIN new_rows n USING (id)
            WHERE (ST_Y(o.location::geometry), ST_X(o.location::geometry), o.tags)
                  IS DISTINCT FROM (ST_Y(n.location::geometry), ST_X(n.location::geometry), n.tags)
            UNION
            SELECT guide_tile(n.location) FROM old_rows o JOIN new_rows n USING (id)
            WHERE (ST_Y(o.location::geometry), ST_X(o.location::geometry), o.tags)
                  IS DISTINCT FROM (ST_Y(n.location::geometry), ST_X(n.location::geometry), n.tags)));
    END IF;
    IF changed > 0 THEN
        PERFORM guide_tiles_notify(payload);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION guide_author_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed integer;
    payload text;
BEGIN
    SELECT * INTO changed, payload FROM guide_tiles_apply(ARRAY(
        SELECT DISTINCT ROW(guide_tile(location), 0, 0, 0)::guide_tile_delta FROM guides WHERE author_id = NEW.id));
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
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, 1) FROM new_rows));
        PERFORM guide_tiles_grow(ARRAY(SELECT ROW(id, guide_tile(location), ST_Y(location::geometry),
            ST_X(location::geometry), tags)::guide_tile_point FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, -1) FROM old_rows));
        PERFORM guide_tiles_refresh(ARRAY(SELECT DISTINCT guide_tile(location) FROM old_rows));
    ELSE
        SELECT * INTO changed, payload
        FROM guide_tiles_apply(ARRAY(SELECT guide_tile_delta_of(location, -1) FROM old_rows
                                     UNION ALL SELECT guide_tile_delta_of(location, 1) FROM new_rows));
        -- Only guides whose place or tags changed touch the rows (an edit
        -- of the text, or a new cover, leaves them as they are).
        PERFORM guide_tiles_refresh(ARRAY(
            SELECT guide_tile(o.location) FROM old_rows o JOIN new_rows n USING (id)
            WHERE (ST_Y(o.location::geometry), ST_X(o.location::geometry), o.tags)
                  IS DISTINCT FROM (ST_Y(n.location::geometry), ST_X(n.location::geometry), n.tags)
            UNION
            SELECT guide_tile(n.location) FROM old_rows o JOIN new_rows n USING (id)
            WHERE (ST_Y(o.location::geometry), ST_X(o.location::geometry), o.tags)
                  IS DISTINCT FROM (ST_Y(n.location::geometry), ST_X(n.location::geometry), n.tags)));
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

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION guide_author_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed integer;
    payload text;
BEGIN
    SELECT * INTO changed, payload FROM guide_tiles_apply(ARRAY(
        SELECT DISTINCT ROW(guide_tile(location), 0, 0, 0)::guide_tile_delta FROM guides WHERE author_id = NEW.id));
    IF changed > 0 THEN
        IF length(payload) > 7000 THEN
            payload := '*';
        END IF;
        PERFORM pg_notify('guide_tiles', payload);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

DROP FUNCTION guide_tiles_notify(text);
