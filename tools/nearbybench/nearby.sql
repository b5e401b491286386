-- The service's nearby query (sql.nearbySQL) as the store sends it for a
-- first page of limit 20: LIMIT 20+1+8, at random points around a centre
-- given with -D: lat, lng (degrees) and spread_lat, spread_lng (1e-6 degrees).
--   central Seoul: -D lat=37.5665 -D lng=126.9780 -D spread_lat=18000 -D spread_lng=22000
--   sparse area:   -D lat=37.55 -D lng=128.45 -D spread_lat=250000 -D spread_lng=350000
-- The radius filter is applied by the caller.
\set dla random(-:spread_lat, :spread_lat)
\set dln random(-:spread_lng, :spread_lng)
SELECT g.id::text, g.author_id::text, (SELECT u.display_name FROM users u WHERE u.id = g.author_id), g.title,
	ST_Y(g.location::geometry), ST_X(g.location::geometry), g.tags, g.created_at,
	g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint,
	(SELECT count(*) FROM guide_media pc WHERE pc.guide_id = g.id)::int,
	coalesce(c.id::text, ''), coalesce(c.status, ''), coalesce(c.thumbhash, ''), g.d
	FROM (SELECT id, author_id, title, location, tags, created_at, like_count, location <-> ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography AS d
		FROM guides
		ORDER BY location <-> ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography
		LIMIT 29) g
	LEFT JOIN LATERAL (
		SELECT m.id, m.status, m.thumbhash FROM guide_media gm JOIN media m ON m.id = gm.media_id
		WHERE gm.guide_id = g.id ORDER BY gm.position LIMIT 1
	) c ON true;
