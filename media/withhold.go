package media

import (
	"context"
	"strings"

	"github.com/guidepost/guidepost"
	"github.com/guidepost/guidepost/moderation"
)

// withheldPrefix holds the derivatives of photos moderation hides while
// they are served publicly (MEDIA_PUBLIC_BASE_URL): a public base serves
// media/ to anyone who kept a URL, so the objects leave it, and come back
// when the photo is restored. Presigned URLs need no move: none are issued
// for a hidden photo, and those issued before expire within two
// StableURLWindows.
const withheldPrefix = "withheld/"

func withheldKey(key string) string { return withheldPrefix + key }

// withheldKeys are where Withhold puts a photo's fixed-name derivatives
// (Purge deletes them too, and lists what else it moved; the orphan sweep
// never lists this prefix).
func withheldKeys(id string) []string {
	keys := derivativeKeys(id)
	for i, k := range keys {
		keys[i] = withheldKey(k)
	}
	return keys
}

// derivativeKeys are the fixed-name objects a public base serves for a
// photo rendered before variants; the versioned variants are listed.
func derivativeKeys(id string) []string { return []string{WebKey(id), ThumbKey(id), MarkerKey(id)} }

var _ moderation.Photos = (*Service)(nil)

// Withhold moves a hidden photo's public derivatives out of reach of the
// public base: every object under its media/ prefix, so each version of
// each variant goes too, not only the fixed names (an immutable variant URL
// a phone kept would otherwise still answer). It is idempotent: a move
// interrupted half way is finished by the next call.
func (s *Service) Withhold(ctx context.Context, id string) error {
	if s.cfg.PublicBase == "" {
		return nil
	}
	keys, err := s.listKeys(ctx, keyPrefix+id+"/")
	if err != nil {
		return err
	}
	for _, key := range keys {
		if key == legacyOriginalKey(id) { // read by the worker, never served
			continue
		}
		if err := s.move(ctx, key, withheldKey(key)); err != nil {
			return err
		}
	}
	return nil
}

// Release moves a restored photo's derivatives back under the public base.
func (s *Service) Release(ctx context.Context, id string) error {
	if s.cfg.PublicBase == "" {
		return nil
	}
	keys, err := s.listKeys(ctx, withheldKey(keyPrefix+id+"/"))
	if err != nil {
		return err
	}
	for _, key := range keys {
		if err := s.move(ctx, key, strings.TrimPrefix(key, withheldPrefix)); err != nil {
			return err
		}
	}
	return nil
}

// listKeys reads every key under prefix before any is moved, so a move
// never changes the listing it walks.
func (s *Service) listKeys(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	err := s.deps.Blobs.List(ctx, prefix, func(o Object) error {
		keys = append(keys, o.Key)
		return nil
	})
	return keys, err
}

// move copies src to dst, then deletes src; a src already moved (or a
// marker never rendered) is success.
func (s *Service) move(ctx context.Context, src, dst string) error {
	err := s.deps.Blobs.Copy(ctx, src, dst)
	if guidepost.ErrorCode(err) == guidepost.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	return s.deps.Blobs.Delete(ctx, src)
}
