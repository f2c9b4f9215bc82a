int find_it(int x);
