package cache

// FillsPending counts tiles queued or loading in the background.
func (c *Guides) FillsPending() int {
	n := 0
	c.pending.Range(func(any, any) bool { n++; return true })
	return n
}
