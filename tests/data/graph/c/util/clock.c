int clock_now(void) {
  return 42;
}
