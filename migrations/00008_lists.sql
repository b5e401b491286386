-- What list screens need: text search over guides, author names that stay
-- exact in cached lists, and "mine" lists newest first.

-- +goose Up

-- Text search. PostgreSQL 15 has no Korean configuration, and its parser
-- reads a run of Hangul as one word, so "카페" would never find
-- "서울카페에서" (Korean glues particles and compounds to nouns). The
-- document is therefore indexed with the `simple` configuration (lower
-- case, no stemming, no stop words: right for place names in any
-- language) over a text where every Hangul syllable is doubled: "서울카페"
-- becomes "서 서울 울카 카페 페", the run's overlapping syllable pairs
-- (bigrams) between its first and last syllable. A query turns each Hangul
-- run of two or more syllables into the phrase of its bigrams ("서울카페":
-- '서울' <-> '울카' <-> '카페'), which matches wherever those syllables
-- stand together, so a word is found inside compounds and before any
-- particle; one syllable matches a run that starts or ends with it (집 in
-- 우리집, 역 in 서울역). Other words match as words, and as prefixes from
-- three letters on (palace finds palaces). Title, body and tags are one
-- document.
-- +goose StatementBegin
CREATE FUNCTION guide_search_document(title text, body text, tags text[]) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT to_tsvector('simple'::regconfig, regexp_replace(regexp_replace(
        title || ' ' || body || ' ' || array_to_string(tags, ' '),
        -- a space where Hangul meets another script, then every syllable doubled
        '([^가-힣[:space:]])([가-힣])|([가-힣])([^가-힣[:space:]])', '\1\3 \2\4', 'g'),
        '([가-힣])', '\1 \1', 'g'))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION guide_search_query(q text) RETURNS tsquery
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(string_agg('(' || p || ')', ' & ' ORDER BY n), '')::tsquery
    FROM (
        SELECT r.n, CASE
            WHEN r.run ~ '^[가-힣]$' THEN phraseto_tsquery('simple'::regconfig, r.run)::text
            WHEN r.run ~ '^[가-힣]' THEN phraseto_tsquery('simple'::regconfig,
                (SELECT string_agg(substr(r.run, i, 2), ' ' ORDER BY i) FROM generate_series(1, length(r.run) - 1) i))::text
            ELSE phraseto_tsquery('simple'::regconfig, r.run)::text
                 || CASE WHEN r.run ~ '[^[:punct:]]{3}[[:punct:]]*$' THEN ':*' ELSE '' END
        END AS p
        FROM regexp_matches(q, '[가-힣]+|[^가-힣[:space:]]+', 'g') WITH ORDINALITY AS m(run, n),
             LATERAL (SELECT m.run[1] AS run, m.n) r
    ) parts
    WHERE p NOT IN ('', ':*')
$$;
-- +goose StatementEnd

ALTER TABLE guides ADD COLUMN search tsvector GENERATED ALWAYS AS (guide_search_document(title, body, tags)) STORED;
CREATE INDEX guides_search_idx ON guides USING gin (search);

-- Lists carry the author's display name. A rename bumps the tiles of the
-- author's guides (no guide row changes), in the renaming transaction, so
-- a cached list shows the new name as soon as a new guide would show.
-- +goose StatementBegin
CREATE FUNCTION guide_author_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER users_guide_author AFTER UPDATE OF display_name ON users
    FOR EACH ROW WHEN (OLD.display_name IS DISTINCT FROM NEW.display_name)
    EXECUTE FUNCTION guide_author_renamed();

-- "Mine" lists, newest first (ids are UUIDv7: their order is creation
-- order). The guides index also serves what the author index served.
CREATE INDEX guides_author_newest_idx ON guides (author_id, id DESC);
DROP INDEX guides_author_idx;
CREATE INDEX media_owner_newest_idx ON media (owner_id, id DESC) WHERE deleted_at IS NULL;

-- +goose Down
DROP INDEX media_owner_newest_idx;
CREATE INDEX guides_author_idx ON guides (author_id);
DROP INDEX guides_author_newest_idx;
DROP TRIGGER users_guide_author ON users;
DROP FUNCTION guide_author_renamed();
DROP INDEX guides_search_idx;
ALTER TABLE guides DROP COLUMN search;
DROP FUNCTION guide_search_query(text);
DROP FUNCTION guide_search_document(text, text, text[]);
