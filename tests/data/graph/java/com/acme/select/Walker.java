package com.acme.select;

public class Walker {
    public static int walk(String q, Evaluator root) {
        return 0;
    }

    public static int walk(String q, Iterable<String> roots) {
        return 1;
    }
}
