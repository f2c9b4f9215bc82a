package com.acme.select;

import static com.acme.select.Matchers.anyOf;

// a test source root of its own (src/test/java beside src/main/java): the same package
public class CollectorTest {
    public int counts() {
        Collector c = new Collector();
        return Collector.count(anyOf(), new String[0]);
    }
}
