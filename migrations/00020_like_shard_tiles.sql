-- +goose Up
-- A map's most-liked guides were found from the guides of its tiles (the
-- index on guide_tile(location) read over whole rows of tiles around the
-- world, then joined to the likes): at 10 M guides a zoom-13 tile over
-- Seoul kept 64,698 guides and read 42,744 buffers to find the 15 liked
-- ones. Each like shard now carries its guide's tile, so a map finds its
-- liked guides from the likes in its tiles, whatever the number of guides
-- there. The statements that write a shard set it from the guide they
-- already read; a guide that moves to another tile takes its shards along
-- (guide_like_shards_move).
ALTER TABLE guide_like_shards ADD COLUMN tile bigint;
UPDATE guide_like_shards s SET tile = guide_tile(g.location) FROM guides g WHERE g.id = s.guide_id;
ALTER TABLE guide_like_shards ALTER COLUMN tile SET NOT NULL;
-- n carried: a guide's likes in a tile are summed from the index.
CREATE INDEX guide_like_shards_tile_idx ON guide_like_shards (tile, guide_id) INCLUDE (n);

-- A shard written without its tile (a process started before this
-- migration) takes it from its guide.
-- +goose StatementBegin
CREATE FUNCTION guide_like_shards_tile() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.tile := (SELECT guide_tile(location) FROM guides WHERE id = NEW.guide_id);
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER guide_like_shards_tile BEFORE INSERT ON guide_like_shards
    FOR EACH ROW WHEN (NEW.tile IS NULL) EXECUTE FUNCTION guide_like_shards_tile();

-- A guide that changes tile writes its new tile into all 16 of its
-- shards (LikeShards in sql/likes.go), inserting those it lacks with n =
-- 0. Updating only the existing ones would miss a like committing at the
-- same time whose statement read the old location and inserts a new
-- shard: with every shard row written here, that insert meets this row
-- and, once this commits, adds its 1 to it (ON CONFLICT DO UPDATE, which
-- leaves tile alone), and an insert committed first is updated here.
-- Moves are rare; a moved guide's empty shards count nothing.
-- +goose StatementBegin
CREATE FUNCTION guide_like_shards_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO guide_like_shards AS s (guide_id, shard, n, tile)
    SELECT NEW.id, k, 0, guide_tile(NEW.location) FROM generate_series(0, 15) k
    ON CONFLICT (guide_id, shard) DO UPDATE SET tile = excluded.tile;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER guides_like_shards_move AFTER UPDATE OF location ON guides
    FOR EACH ROW WHEN (guide_tile(OLD.location) <> guide_tile(NEW.location))
    EXECUTE FUNCTION guide_like_shards_move();

-- +goose Down
DROP TRIGGER guides_like_shards_move ON guides;
DROP FUNCTION guide_like_shards_move();
DROP TRIGGER guide_like_shards_tile ON guide_like_shards;
DROP FUNCTION guide_like_shards_tile();
DROP INDEX guide_like_shards_tile_idx;
ALTER TABLE guide_like_shards DROP COLUMN tile;
