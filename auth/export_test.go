package auth

// OccupyHashing takes every hashing slot until release is called, so a
// test can tell an answer given before hashing from one that waited.
func (s *Service) OccupyHashing() (release func()) {
	for range cap(s.hashing) {
		s.hashing <- struct{}{}
	}
	return func() {
		for range cap(s.hashing) {
			<-s.hashing
		}
	}
}
