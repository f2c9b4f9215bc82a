package com.acme.select;

import java.util.ArrayList;

public class Group extends ArrayList<String> {
    public int walkAll(String q) {
        return Walker.walk(q, this);  // a Group is no Evaluator: the Iterable overload
    }
}
