-- The statements the store sends for a text search (sql/guides_search.go)
-- on a first page of limit 20 within radius_m 1000, at random points
-- around a centre given with -D as in nearby.sql, with one of the six
-- searches nearbybench -q '카페,coffee,야경,museum,등대,makgeolli' sends,
-- at random. Every search walks the 84 nearest guides (textWalkSQL); the
-- four common words find their page there, and the store then reads the
-- items of the first 21 matches (here in the same statement: one round
-- trip fewer than the store); the two rare ones (fewer than 1 match in
-- 84) are then read through the text index (nearbyTextSQL).
\set dla random(-:spread_lat, :spread_lat)
\set dln random(-:spread_lng, :spread_lng)
\set w random(1, 6)
SELECT count(*) FILTER (WHERE m) FROM (
	SELECT id::text, ST_Y(location::geometry), ST_X(location::geometry), location <-> ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography,
		search @@ (SELECT guide_search_query((ARRAY['카페', 'coffee', '야경', 'museum', '등대', 'makgeolli'])[:w])) AS m
	FROM guides
	ORDER BY location <-> ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography
	LIMIT 84) walk;
\if :w <= 4
SELECT g.id::text, g.author_id::text, (SELECT u.display_name FROM users u WHERE u.id = g.author_id), g.title,
	ST_Y(g.location::geometry), ST_X(g.location::geometry), g.tags, g.created_at,
	g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint,
	(SELECT count(*) FROM guide_media pc WHERE pc.guide_id = g.id)::int,
	coalesce(c.id::text, ''), coalesce(c.status, ''), coalesce(c.thumbhash, '')
	FROM (SELECT * FROM (SELECT id, author_id, title, location, tags, created_at, like_count, search
			FROM guides
			ORDER BY location <-> ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography
			LIMIT 84) walk
		WHERE search @@ (SELECT guide_search_query((ARRAY['카페', 'coffee', '야경', 'museum'])[:w]))
		LIMIT 21) g
	LEFT JOIN LATERAL (
		SELECT m.id, m.status, m.thumbhash FROM guide_media gm JOIN media m ON m.id = gm.media_id
		WHERE gm.guide_id = g.id ORDER BY gm.position LIMIT 1
	) c ON true;
\else
SELECT g.id::text, g.author_id::text, (SELECT u.display_name FROM users u WHERE u.id = g.author_id), g.title,
	ST_Y(g.location::geometry), ST_X(g.location::geometry), g.tags, g.created_at,
	g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint,
	(SELECT count(*) FROM guide_media pc WHERE pc.guide_id = g.id)::int,
	coalesce(c.id::text, ''), coalesce(c.status, ''), coalesce(c.thumbhash, ''), g.d
	FROM (SELECT id, author_id, title, location, tags, created_at, like_count, location <-> ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography AS d
		FROM guides
		WHERE search @@ (SELECT guide_search_query((ARRAY['카페', 'coffee', '야경', 'museum', '등대', 'makgeolli'])[:w]))
		  AND location && _ST_Expand(ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography, 1000.01)
		  AND location <-> ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography <= 1000.01
		ORDER BY (location <-> ST_SetSRID(ST_MakePoint(:lng + :dln / 1e6, :lat + :dla / 1e6), 4326)::geography) + 0
		LIMIT 29) g
	LEFT JOIN LATERAL (
		SELECT m.id, m.status, m.thumbhash FROM guide_media gm JOIN media m ON m.id = gm.media_id
		WHERE gm.guide_id = g.id ORDER BY gm.position LIMIT 1
	) c ON true;
\endif
