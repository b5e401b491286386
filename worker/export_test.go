package worker

// RaceBuild tells the tests whether render children run without a memory
// limit.
const RaceBuild = raceBuild
