package com.acme;

import java.io.BufferedReader;
import java.io.Reader;

// overloads: by argument count, by a literal's or a cast's type; varargs take an array
public class Printer {
    public void print(String text) {}
    public void print(int value) {}
    public void print(String text, int width) {}
    public void printAll(Iterable<?> values) {}
    public void printAll(Object... values) {}

    public void run(Object[] row) {
        print("a");
        print(7);
        print("a", 3);
        printAll((Object[]) row);
        printAll("a", "b");
    }

    // try-with-resources: the variable has its declared type (a JDK reader, not Lines)
    public String first(Reader in) throws Exception {
        try (BufferedReader reader = new BufferedReader(in)) {
            return reader.readLine();
        }
    }
}

class Lines {
    public String readLine() {
        return "";
    }
}
