"""Games other than Ninja All-Stars, each as a package; for now their pure rules engines only
(no Django app yet, and no Django import anywhere below this package)."""
