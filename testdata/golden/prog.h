unsigned long leaf_a(unsigned long n);
unsigned long leaf_b(unsigned long n);
unsigned long other(unsigned long n);
