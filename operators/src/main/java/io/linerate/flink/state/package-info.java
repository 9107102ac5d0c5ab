/** What the operators' own state serializers share: snapshots that record and check the state's shape. */
package io.linerate.flink.state;
