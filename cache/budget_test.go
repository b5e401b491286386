package cache

import (
	"context"
	"testing"
	"time"
)

// A load spends what it took; the loaders then wait until the allowance
// or answers from memory have paid for it.
func TestBudgetWaitsUntilAnswersRepayALoad(t *testing.T) {
	b := newLoadBudget(0.01, 0.1)
	ctx := context.Background()
	if !b.wait(ctx) {
		t.Fatal("an empty budget refused the first load")
	}
	b.spend(100 * time.Millisecond) // the allowance repays it in 10 s
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if b.wait(short) {
		t.Fatal("a second load ran on credit the first one spent")
	}
	b.missed(savedNearby, 30*time.Millisecond)
	for range 4 {
		b.hit(savedNearby)
	}
	soon, cancel2 := context.WithTimeout(ctx, time.Second)
	defer cancel2()
	if !b.wait(soon) {
		t.Fatal("four answers that saved 30 ms each did not pay for a 100 ms load")
	}
}

// Hits bank at most budgetCap, and so does the allowance over a long idle
// spell.
func TestBudgetIsCapped(t *testing.T) {
	b := newLoadBudget(0.01, 0.1)
	b.missed(savedBBox, time.Second)
	for range 100 {
		b.hit(savedBBox)
	}
	if c := b.credit.Load(); c > budgetCap+int64(time.Second) {
		t.Fatalf("credit %s, want at most %s", time.Duration(c), time.Duration(budgetCap))
	}
	b = newLoadBudget(0.5, 0.9)
	if c := b.grant(time.Now().Add(time.Hour)); c != budgetCap {
		t.Fatalf("an idle hour granted %s, want %s", time.Duration(c), time.Duration(budgetCap))
	}
}

// An allowance at or above FillDuty pays for every load the duty lets
// run: the budget then never waits.
func TestBudgetOffAtTheDuty(t *testing.T) {
	b := newLoadBudget(1, 1)
	b.spend(time.Hour)
	short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if !b.wait(short) {
		t.Fatal("waited with the allowance at the duty")
	}
}

// The moving average follows what misses cost.
func TestBudgetAveragesMisses(t *testing.T) {
	b := newLoadBudget(0.01, 0.1)
	b.missed(savedNearby, 10*time.Millisecond)
	for range 200 {
		b.missed(savedNearby, 2*time.Millisecond)
	}
	if s := time.Duration(b.saved[savedNearby].Load()); s < 2*time.Millisecond || s > 2100*time.Microsecond {
		t.Fatalf("average %s after 200 misses of 2 ms", s)
	}
	if b.saved[savedBBox].Load() != 0 {
		t.Fatal("a nearby miss moved the viewport's average")
	}
}
