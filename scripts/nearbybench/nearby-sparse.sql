-- The service's nearby query (sql.nearbySQL) as the store sends it for a
-- first page of limit 20: LIMIT 20+1+8. Random points in the sparse area of
-- scripts/nearbybench; the radius filter is applied by the caller.
\set dla random(-250000, 250000)
\set dln random(-350000, 350000)
SELECT g.id::text, g.title, ST_Y(g.location::geometry), ST_X(g.location::geometry), g.tags, g.created_at,
	g.like_count + coalesce((SELECT sum(s.n) FROM guide_like_shards s WHERE s.guide_id = g.id), 0)::bigint,
	coalesce(c.id::text, ''), coalesce(c.status, ''), coalesce(c.thumbhash, ''), g.d
	FROM (SELECT id, title, location, tags, created_at, like_count, location <-> ST_SetSRID(ST_MakePoint(128.45 + :dln / 1e6, 37.55 + :dla / 1e6), 4326)::geography AS d
		FROM guides
		ORDER BY location <-> ST_SetSRID(ST_MakePoint(128.45 + :dln / 1e6, 37.55 + :dla / 1e6), 4326)::geography
		LIMIT 29) g
	LEFT JOIN LATERAL (
		SELECT m.id, m.status, m.thumbhash FROM guide_media gm JOIN media m ON m.id = gm.media_id
		WHERE gm.guide_id = g.id ORDER BY gm.position LIMIT 1
	) c ON true;
