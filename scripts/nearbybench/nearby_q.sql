-- The service's text search (sql.nearbyTextSQL) as the store sends it for
-- a first page of limit 20 within radius_m 1000: LIMIT 20+1+8, at random
-- points around a centre given with -D as in nearby.sql, with one of the
-- six searches nearbybench -q '카페,coffee,야경,museum,등대,makgeolli'
-- sends, at random.
\set dla random(-:spread_lat, :spread_lat)
\set dln random(-:spread_lng, :spread_lng)
\set w random(1, 6)
SELECT g.id::text, g.author_id::text, (SELECT u.display_name FROM users u WHERE u.id = g.author_id), g.title,
	ST_Y(g.location::geometry), ST_X(g.location::geometry), g.tags, g.created_at,
	g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint,
	(SELECT count(*) FROM guide_media pc WHERE pc.guide_id = g.id)::int,
	coalesce(c.id::text, ''), coalesce(c.status, ''), coalesce(c.thumbhash, ''), g.d
	FROM (SELECT id, author_id, title, location, tags, created_at, like_count, location <-> ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography AS d
		FROM guides
		WHERE location && _ST_Expand(ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography, 1000.01)
		  AND location <-> ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography <= 1000.01
		  AND search @@ guide_search_query((ARRAY['카페', 'coffee', '야경', 'museum', '등대', 'makgeolli'])[:w])
		ORDER BY location <-> ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography
		LIMIT 29) g
	LEFT JOIN LATERAL (
		SELECT m.id, m.status, m.thumbhash FROM guide_media gm JOIN media m ON m.id = gm.media_id
		WHERE gm.guide_id = g.id ORDER BY gm.position LIMIT 1
	) c ON true;
