package cache

// FillsPending counts tiles queued or loading in the background.
func (c *Guides) FillsPending() int { return c.queue.size() }
